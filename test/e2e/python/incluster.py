# A client inside a pod, configured as load_incluster_config() configures it: the API server's address from the
# KUBERNETES_SERVICE_HOST/PORT variables, the token and ca.crt from the files of the service-account mount.
#   python3 incluster.py <folder with env.json, token, ca.crt, namespace>
# Prints one JSON object: the names of the pods of the namespace, or the status and body of the refusal.
import json, os, sys
from kubernetes import client
from kubernetes.client import ApiException
from kubernetes.config.incluster_config import InClusterConfigLoader

folder = sys.argv[1]
with open(os.path.join(folder, 'env.json')) as f:
    environ = json.load(f)
InClusterConfigLoader(token_filename=os.path.join(folder, 'token'), cert_filename=os.path.join(folder, 'ca.crt'), environ=environ).load_and_set()
with open(os.path.join(folder, 'namespace')) as f:
    namespace = f.read()
try:
    print(json.dumps({'pods': sorted(p.metadata.name for p in client.CoreV1Api().list_namespaced_pod(namespace).items)}))
except ApiException as e:
    print(json.dumps({'status': e.status, 'body': json.loads(e.body)}))
