# Lists every resource the client's typed APIs can list without arguments (cluster-scoped lists and
# list_*_for_all_namespaces): the generated models raise when a field they require is missing or an enum value is
# unknown, so each list must deserialise. Prints one JSON object: the lists read, and the failures with their errors.
import inspect, json, sys
from kubernetes import client, config

config.load_kube_config(config_file=sys.argv[1])
api_client = client.ApiClient()
read, failed, not_served = {}, [], []
for name, cls in inspect.getmembers(client, inspect.isclass):
    if not name.endswith('Api') or name == 'ApiClient':
        continue
    api = cls(api_client)
    for method, fn in inspect.getmembers(api, inspect.ismethod):
        if not method.startswith('list_') or method.endswith('_with_http_info'):
            continue
        params = inspect.signature(fn).parameters.values()
        if any(p.kind == p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in params):
            continue
        try:
            read['%s.%s' % (name, method)] = [i.metadata.name for i in fn().items]
        except client.exceptions.ApiException as e:
            # versions 1.27 no longer serves (the client knows older ones) answer 404
            (not_served if e.status == 404 else failed).append(['%s.%s' % (name, method), str(e.status)])
        except Exception as e:
            failed.append(['%s.%s' % (name, method), '%s: %s' % (type(e).__name__, e)])
print(json.dumps({'read': read, 'failed': failed, 'notServed': not_served}))
