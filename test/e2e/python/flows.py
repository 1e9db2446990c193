# What operators and controllers written with the Python client do, one flow per command:
#   python3 flows.py <kubeconfig> <flow> [args...]
# Each flow prints one JSON object on its last line, for the test to compare with the reference's answers.
import base64, datetime, json, subprocess, sys, tempfile, time
from kubernetes import client, config, dynamic, watch
from kubernetes.client import ApiException

config.load_kube_config(config_file=sys.argv[1])
api_client = client.ApiClient()
core = client.CoreV1Api()
apps = client.AppsV1Api()
custom = client.CustomObjectsApi()
flows = {}


def flow(f):
    flows[f.__name__] = f
    return f


def failure(call):
    """the status code, reason and message of a call that fails"""
    try:
        call()
    except ApiException as e:
        body = json.loads(e.body) if e.body else {}
        return [e.status, body.get('reason'), body.get('message')]
    return None


def retried(step):
    """a read-modify-write as controllers make one: read again and retry when another writer (here the deployment
    controller, writing status) got in between and the write was refused with 409"""
    for _ in range(20):
        try:
            return step()
        except ApiException as e:
            if e.status != 409:
                raise
    return step()


def ensure_namespace(ns):
    try:
        core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
    except ApiException as e:
        if e.status != 409:
            raise


def patch(path, body, content_type, query=()):
    """a PATCH of any content type: a str body goes out as it is, which is how this client sends YAML and apply"""
    return api_client.call_api(path, 'PATCH', {}, list(query), {'Content-Type': content_type, 'Accept': 'application/json'},
                               body=body, response_type='object', auth_settings=['BearerToken'], _return_http_data_only=True)


def deployment(name, replicas=1):
    labels = {'app': name}
    return client.V1Deployment(metadata=client.V1ObjectMeta(name=name), spec=client.V1DeploymentSpec(
        replicas=replicas, selector=client.V1LabelSelector(match_labels=labels),
        template=client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels=labels), spec=client.V1PodSpec(
            containers=[client.V1Container(name='main', image='main:1', env=[client.V1EnvVar(name='A', value='1')])]))))


@flow
def paging(ns, count):
    """a namespace of `count` ConfigMaps read in pages of 250, then a page at an exact resourceVersion"""
    ensure_namespace(ns)
    for i in range(int(count)):
        core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='cm-%05d' % i, labels={'bulk': 'yes'})))
    names, remaining, token = [], [], None
    while True:
        page = core.list_namespaced_config_map(ns, limit=250, _continue=token)
        names += [c.metadata.name for c in page.items]
        remaining.append(page.metadata.remaining_item_count)
        token = page.metadata._continue
        if not token:
            break
    selected = core.list_namespaced_config_map(ns, limit=250, label_selector='bulk=yes')
    rv = selected.metadata.resource_version
    exact = core.list_namespaced_config_map(ns, limit=10, resource_version=rv, resource_version_match='Exact')
    exact_next = core.list_namespaced_config_map(ns, limit=10, _continue=exact.metadata._continue)
    return {
        'count': len(names), 'distinct': len(set(names)), 'sorted': names == sorted(names), 'remaining': remaining,
        'selectedRemaining': selected.metadata.remaining_item_count, 'selectedContinues': bool(selected.metadata._continue),
        'exactRv': exact.metadata.resource_version == rv, 'exactNext': [c.metadata.name for c in exact_next.items][:1],
        'matchWithoutRv': failure(lambda: core.list_namespaced_config_map(ns, resource_version_match='Exact')),
        'badContinue': failure(lambda: core.list_namespaced_config_map(ns, limit=1, _continue='not-a-token')),
    }


@flow
def watch_from(ns, rv):
    """a watch from a resourceVersion, allowing bookmarks, until its timeout: the event types seen"""
    w = watch.Watch()
    seen = []
    for event in w.stream(core.list_namespaced_config_map, ns, resource_version=rv, allow_watch_bookmarks=True, timeout_seconds=3):
        raw = event['raw_object']
        seen.append([event['type'], raw['metadata'].get('name'), raw['metadata'].get('resourceVersion')])
    return {'events': seen}


@flow
def list_rv(ns):
    return {'rv': core.list_namespaced_config_map(ns, limit=1).metadata.resource_version}


@flow
def relist_after_gone(ns, old_rv):
    """an informer's loop: a watch from a compacted resourceVersion fails with 410, so list again and watch from there"""
    gone = None
    try:
        for _ in watch.Watch().stream(core.list_namespaced_config_map, ns, resource_version=old_rv):
            pass
    except ApiException as e:
        gone = [e.status, e.reason]
    listed = core.list_namespaced_config_map(ns)
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='after-relist')))
    seen = []
    w = watch.Watch()
    for event in w.stream(core.list_namespaced_config_map, ns, resource_version=listed.metadata.resource_version, timeout_seconds=30):
        seen.append([event['type'], event['object'].metadata.name])
        w.stop()
    return {'gone': gone, 'listed': len(listed.items), 'afterRelist': seen}


@flow
def patches(ns):
    """every patch type on a ConfigMap and a Deployment; apply with a field manager, its conflict, then force"""
    ensure_namespace(ns)
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='p', labels={'a': '1'}), data={'k': 'v'}))
    apps.create_namespaced_deployment(ns, deployment('p'))
    out = {}
    out['strategicDict'] = [e.name for e in apps.patch_namespaced_deployment('p', ns, {'spec': {'template': {'spec': {'containers': [
        {'name': 'main', 'env': [{'name': 'B', 'value': '2'}]}]}}}}).spec.template.spec.containers[0].env]
    out['jsonList'] = core.patch_namespaced_config_map('p', ns, [{'op': 'add', 'path': '/data/j', 'value': 'x'}]).data
    out['merge'] = patch('/api/v1/namespaces/%s/configmaps/p' % ns, {'metadata': {'labels': {'a': None, 'm': '2'}}}, 'application/merge-patch+json')['metadata']['labels']
    out['jsonTestFails'] = failure(lambda: core.patch_namespaced_config_map('p', ns, [{'op': 'test', 'path': '/data/k', 'value': 'other'}]))
    path = '/apis/apps/v1/namespaces/%s/deployments/applied' % ns
    body = {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'applied'}, 'spec': {'replicas': 2,
            'selector': {'matchLabels': {'app': 'applied'}}, 'template': {'metadata': {'labels': {'app': 'applied'}},
            'spec': {'containers': [{'name': 'main', 'image': 'main:1'}]}}}}
    applied = patch(path, json.dumps(body), 'application/apply-patch+yaml', [('fieldManager', 'py-one')])
    out['applyManagers'] = [[m['manager'], m['operation']] for m in applied['metadata']['managedFields']]
    body['spec']['replicas'] = 3
    out['applyConflict'] = failure(lambda: patch(path, json.dumps(body), 'application/apply-patch+yaml', [('fieldManager', 'py-two')]))
    forced = patch(path, json.dumps(body), 'application/apply-patch+yaml', [('fieldManager', 'py-two'), ('force', True)])
    # the deployment controller may have written status by now; only the appliers' entries are compared
    out['forced'] = [forced['spec']['replicas'], sorted(m['manager'] for m in forced['metadata']['managedFields'] if m['operation'] == 'Apply')]
    out['yamlMerge'] = patch('/api/v1/namespaces/%s/configmaps/p' % ns, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  y: from-yaml\n', 'application/apply-patch+yaml', [('fieldManager', 'py-yaml')])['data']['y']
    out['scalePatch'] = apps.patch_namespaced_deployment_scale('p', ns, {'spec': {'replicas': 3}}).spec.replicas
    def replace_scale():
        scale = apps.read_namespaced_deployment_scale('p', ns)
        scale.spec.replicas = 2
        return apps.replace_namespaced_deployment_scale('p', ns, scale)
    out['scaleReplace'] = retried(replace_scale).spec.replicas
    def replace_status():
        d = apps.read_namespaced_deployment_status('p', ns)
        d.status.conditions = (d.status.conditions or []) + [client.V1DeploymentCondition(type='Checked', status='True', reason='ByPython', message='checked')]
        return apps.replace_namespaced_deployment_status('p', ns, d)
    out['statusReplace'] = [c.type for c in retried(replace_status).status.conditions]
    out['specUnchangedByStatus'] = apps.read_namespaced_deployment('p', ns).spec.replicas
    out['badStatus'] = failure(lambda: apps.patch_namespaced_deployment_status('p', ns, {'status': {'unavailableReplicas': -1}}))
    return out


@flow
def custom_objects(ns):
    """a namespaced kind with status and scale subresources and a cluster-scoped one, through CustomObjectsApi"""
    ensure_namespace(ns)
    g, v = 'example.com', 'v1'
    out = {}
    created = custom.create_namespaced_custom_object(g, v, ns, 'widgets', {'apiVersion': 'example.com/v1', 'kind': 'Widget', 'metadata': {'name': 'w'}, 'spec': {'replicas': 1, 'size': 's'}})
    out['get'] = custom.get_namespaced_custom_object(g, v, ns, 'widgets', 'w')['spec']
    out['listed'] = [len(custom.list_namespaced_custom_object(g, v, ns, 'widgets')['items']), len(custom.list_cluster_custom_object(g, v, 'widgets')['items'])]
    out['merge'] = custom.patch_namespaced_custom_object(g, v, ns, 'widgets', 'w', {'spec': {'size': 'm'}})['spec']
    out['status'] = custom.patch_namespaced_custom_object_status(g, v, ns, 'widgets', 'w', {'status': {'phase': 'Ready', 'replicas': 1}})['status']
    current = custom.get_namespaced_custom_object(g, v, ns, 'widgets', 'w')
    current['status'] = {'phase': 'Replaced'}
    current['spec']['size'] = 'ignored through status'
    replaced = custom.replace_namespaced_custom_object_status(g, v, ns, 'widgets', 'w', current)
    out['statusReplace'] = [replaced['status'], replaced['spec']['size']]
    out['scale'] = custom.patch_namespaced_custom_object_scale(g, v, ns, 'widgets', 'w', {'spec': {'replicas': 4}})['spec']
    out['generation'] = custom.get_namespaced_custom_object(g, v, ns, 'widgets', 'w')['metadata']['generation']
    seen = []
    rv = created['metadata']['resourceVersion']
    for event in watch.Watch().stream(custom.list_namespaced_custom_object, g, v, ns, 'widgets', resource_version=rv, timeout_seconds=2):
        seen.append(event['type'])
    out['watched'] = seen
    out['delete'] = custom.delete_namespaced_custom_object(g, v, ns, 'widgets', 'w')['status']
    gizmo = custom.create_cluster_custom_object(g, v, 'gizmos', {'apiVersion': 'example.com/v1', 'kind': 'Gizmo', 'metadata': {'name': 'g'}, 'anything': {'x': 1}})
    out['cluster'] = [
        custom.patch_cluster_custom_object(g, v, 'gizmos', 'g', {'anything': {'y': 2}})['anything'],
        custom.patch_cluster_custom_object_status(g, v, 'gizmos', 'g', {'status': {'ok': True}})['status'],
        [e['type'] for e in watch.Watch().stream(custom.list_cluster_custom_object, g, v, 'gizmos', resource_version=gizmo['metadata']['resourceVersion'], timeout_seconds=2)],
        custom.delete_cluster_custom_object(g, v, 'gizmos', 'g')['status'],
    ]
    dc = dynamic.DynamicClient(api_client)
    widgets = dc.resources.get(api_version='example.com/v1', kind='Widget')
    pods = dc.resources.get(api_version='v1', kind='Pod')
    cms = dc.resources.get(api_version='v1', kind='ConfigMap')
    dc.create(cms, body={'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'dyn'}, 'data': {'a': '1'}}, namespace=ns)
    merged = dc.patch(cms, body={'data': {'b': '2'}}, name='dyn', namespace=ns, content_type='application/merge-patch+json')
    out['dynamic'] = [widgets.name, widgets.namespaced, sorted(widgets.subresources.keys()), sorted(pods.subresources.keys()),
                      dict(merged.data), len(dc.get(dc.resources.get(api_version='apps/v1', kind='Deployment'), namespace=ns).items)]
    return out


@flow
def coordination(ns):
    """leader election on a Lease (the loser's stale write is a 409), Events v1, TokenRequest and reviews"""
    ensure_namespace(ns)
    leases = client.CoordinationV1Api()
    now = datetime.datetime.now(datetime.timezone.utc)
    leases.create_namespaced_lease(ns, client.V1Lease(metadata=client.V1ObjectMeta(name='leader'), spec=client.V1LeaseSpec(
        holder_identity='a', lease_duration_seconds=15, acquire_time=now, renew_time=now, lease_transitions=0)))
    mine, theirs = leases.read_namespaced_lease('leader', ns), leases.read_namespaced_lease('leader', ns)
    mine.spec.renew_time = datetime.datetime.now(datetime.timezone.utc)
    leases.replace_namespaced_lease('leader', ns, mine)
    theirs.spec.holder_identity = 'b'
    out = {'leaseConflict': failure(lambda: leases.replace_namespaced_lease('leader', ns, theirs)),
           'holder': leases.read_namespaced_lease('leader', ns).spec.holder_identity}
    events = client.EventsV1Api()
    e = events.create_namespaced_event(ns, client.EventsV1Event(
        metadata=client.V1ObjectMeta(generate_name='reconciled-'), event_time=datetime.datetime.now(datetime.timezone.utc),
        reporting_controller='example.com/operator', reporting_instance='operator-1', action='Reconcile', reason='Reconciled',
        type='Normal', note='done', regarding=client.V1ObjectReference(kind='Lease', name='leader', namespace=ns, api_version='coordination.k8s.io/v1')))
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.%fZ')
    series = events.patch_namespaced_event(e.metadata.name, ns, {'series': {'count': 2, 'lastObservedTime': stamp}})
    legacy = core.read_namespaced_event(e.metadata.name, ns)
    out['event'] = [series.series.count, len(events.list_namespaced_event(ns).items), legacy.reason, legacy.reporting_component]
    core.create_namespaced_service_account(ns, client.V1ServiceAccount(metadata=client.V1ObjectMeta(name='bot')))
    token = core.create_namespaced_service_account_token('bot', ns, client.AuthenticationV1TokenRequest(
        spec=client.V1TokenRequestSpec(audiences=['operator'], expiration_seconds=3600)))
    authn = client.AuthenticationV1Api()
    review = authn.create_token_review(client.V1TokenReview(spec=client.V1TokenReviewSpec(token=token.status.token, audiences=['operator'])))
    out['token'] = [review.status.authenticated, review.status.user.username, review.status.audiences,
                    failure(lambda: core.create_namespaced_service_account_token('nobody', ns, client.AuthenticationV1TokenRequest(spec=client.V1TokenRequestSpec(audiences=['x'])))),
                    failure(lambda: core.create_namespaced_service_account_token('bot', ns, client.AuthenticationV1TokenRequest(spec=client.V1TokenRequestSpec(audiences=['x'], expiration_seconds=60))))[0]]
    authz = client.AuthorizationV1Api()
    sar = authz.create_subject_access_review(client.V1SubjectAccessReview(spec=client.V1SubjectAccessReviewSpec(
        user='system:serviceaccount:%s:bot' % ns, groups=['system:serviceaccounts'], resource_attributes=client.V1ResourceAttributes(verb='delete', resource='nodes'))))
    ssar = authz.create_self_subject_access_review(client.V1SelfSubjectAccessReview(spec=client.V1SelfSubjectAccessReviewSpec(
        resource_attributes=client.V1ResourceAttributes(verb='create', group='apps', resource='deployments', namespace=ns))))
    out['access'] = [sar.status.allowed, ssar.status.allowed, failure(lambda: authz.create_subject_access_review(client.V1SubjectAccessReview(spec=client.V1SubjectAccessReviewSpec(user='x'))))[0]]
    return out


@flow
def issuer_discovery():
    """the service-account issuer's OpenID discovery document and key set, as workload-identity setups read them"""
    # the client types both answers as str, which it fills with the repr of the parsed JSON: read the raw answers
    doc = client.WellKnownApi().get_service_account_issuer_open_id_configuration(_preload_content=False)
    keys = client.OpenidApi().get_service_account_issuer_open_id_keyset(_preload_content=False)
    return {'config': json.loads(doc.data), 'keys': json.loads(keys.data), 'types': [doc.headers['Content-Type'], keys.headers['Content-Type']],
            'cache': doc.headers['Cache-Control']}


@flow
def csr_approval(name):
    """a client certificate request approved through the approval subresource, issued, and then refused a Denied"""
    key = tempfile.NamedTemporaryFile(suffix='.key')
    request = subprocess.run(['openssl', 'req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
                              '-keyout', key.name, '-subj', '/CN=%s/O=developers' % name], check=True, capture_output=True).stdout
    certs = client.CertificatesV1Api()
    csr = certs.create_certificate_signing_request(client.V1CertificateSigningRequest(metadata=client.V1ObjectMeta(name=name),
        spec=client.V1CertificateSigningRequestSpec(request=base64.b64encode(request).decode(), signer_name='kubernetes.io/kube-apiserver-client',
                                                   usages=['client auth'], expiration_seconds=3600)))
    csr.status.conditions = [client.V1CertificateSigningRequestCondition(type='Approved', status='True', reason='PythonApproved', message='approved')]
    approved = certs.replace_certificate_signing_request_approval(name, csr)
    deadline = time.time() + 60
    while not certs.read_certificate_signing_request(name).status.certificate:
        if time.time() > deadline:
            raise SystemExit('no certificate issued')
        time.sleep(0.2)
    current = certs.read_certificate_signing_request_approval(name)
    current.status.conditions.append(client.V1CertificateSigningRequestCondition(type='Denied', status='True', reason='Changed', message='changed my mind'))
    denied = failure(lambda: certs.replace_certificate_signing_request_approval(name, current))
    current = certs.read_certificate_signing_request_approval(name)
    current.status.conditions = []
    removed = failure(lambda: certs.replace_certificate_signing_request_approval(name, current))
    return {'approved': [c.type for c in approved.status.conditions], 'deniedAfter': denied, 'removed': removed,
            'final': [c.type for c in certs.read_certificate_signing_request(name).status.conditions]}


@flow
def csr_signing(name):
    """an external signer: an approved request for its own signer gets its certificate through the status subresource,
    the read object sent back as the client serialises it (its own spelling of the condition times)"""
    work = tempfile.mkdtemp()
    run = lambda *args: subprocess.run(list(args), check=True, capture_output=True, cwd=work).stdout
    run('openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt',
        '-subj', '/CN=python-signer', '-days', '1')
    request = run('openssl', 'req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'user.key', '-subj', '/CN=%s' % name)
    certs = client.CertificatesV1Api()
    csr = certs.create_certificate_signing_request(client.V1CertificateSigningRequest(metadata=client.V1ObjectMeta(name=name),
        spec=client.V1CertificateSigningRequestSpec(request=base64.b64encode(request).decode(), signer_name='example.com/python-signer', usages=['client auth'])))
    csr.status.conditions = [client.V1CertificateSigningRequestCondition(type='Approved', status='True', reason='PythonApproved', message='approved')]
    held = certs.replace_certificate_signing_request_approval(name, csr).status.conditions[0]
    csr = certs.read_certificate_signing_request(name)
    with open(work + '/req.csr', 'wb') as f:
        f.write(request)
    cert = run('openssl', 'x509', '-req', '-in', 'req.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1')
    csr.status.certificate = base64.b64encode(cert).decode()
    signed = failure(lambda: certs.replace_certificate_signing_request_status(name, csr))
    after = certs.read_certificate_signing_request(name)
    return {'failure': signed, 'issued': bool(after.status.certificate), 'conditions': [[c.type, c.reason] for c in after.status.conditions],
            'kept': after.status.conditions[0].last_update_time == held.last_update_time}


@flow
def deletes(ns):
    """preconditions, grace period 0, foreground cascading, delete_collection by label and field selectors"""
    ensure_namespace(ns)
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='guarded')))
    cm = core.read_namespaced_config_map('guarded', ns)
    out = {
        'uidMismatch': failure(lambda: core.delete_namespaced_config_map('guarded', ns, body=client.V1DeleteOptions(preconditions=client.V1Preconditions(uid='not-its-uid')))),
        'rvMismatch': failure(lambda: core.delete_namespaced_config_map('guarded', ns, body=client.V1DeleteOptions(preconditions=client.V1Preconditions(resource_version='1')))),
    }
    core.delete_namespaced_config_map('guarded', ns, body=client.V1DeleteOptions(grace_period_seconds=0, preconditions=client.V1Preconditions(uid=cm.metadata.uid, resource_version=cm.metadata.resource_version)))
    out['guardedGone'] = failure(lambda: core.read_namespaced_config_map('guarded', ns))[0]
    for i in range(4):
        core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='c%d' % i, labels={'batch': 'one' if i < 2 else 'two'})))
    core.delete_collection_namespaced_config_map(ns, label_selector='batch=one')
    out['afterLabel'] = sorted(c.metadata.name for c in core.list_namespaced_config_map(ns, label_selector='batch').items)
    core.delete_collection_namespaced_config_map(ns, field_selector='metadata.name=c2')
    out['afterField'] = sorted(c.metadata.name for c in core.list_namespaced_config_map(ns, label_selector='batch').items)
    apps.create_namespaced_deployment(ns, deployment('fg'))
    deadline = time.time() + 60
    while not apps.list_namespaced_replica_set(ns, label_selector='app=fg').items:
        if time.time() > deadline:
            raise SystemExit('no ReplicaSet for fg')
        time.sleep(0.2)
    # the delete's own answer is the object as the delete left it: a read after it could find the garbage collector
    # already done (the object gone) on a quick run. The client types that answer as a Status, so it is read raw
    pending = json.loads(apps.delete_namespaced_deployment('fg', ns, body=client.V1DeleteOptions(propagation_policy='Foreground'), _preload_content=False).data)
    out['foreground'] = [pending['metadata'].get('deletionTimestamp') is not None, pending['metadata'].get('finalizers')]
    while True:
        try:
            apps.read_namespaced_deployment('fg', ns)
        except ApiException as e:
            if e.status == 404:
                break
        if time.time() > deadline:
            raise SystemExit('fg never went')
        time.sleep(0.2)
    out['replicaSetsLeft'] = len(apps.list_namespaced_replica_set(ns, label_selector='app=fg').items)
    return out


@flow
def watch_across_restart(ns, marker_file):
    """a controller's loop: list, then watch from the list's resourceVersion; on a lost connection or 410, start over.
    Prints each ConfigMap seen; stops once one named `last` arrives"""
    seen = []
    rv = None
    while 'last' not in seen:
        try:
            if rv is None:
                listed = core.list_namespaced_config_map(ns)
                seen += [c.metadata.name for c in listed.items if c.metadata.name not in seen]
                rv = listed.metadata.resource_version
                open(marker_file, 'a').write('watching\n')
            w = watch.Watch()
            for event in w.stream(core.list_namespaced_config_map, ns, resource_version=rv, timeout_seconds=60, _request_timeout=70):
                rv = event['object'].metadata.resource_version
                if event['object'].metadata.name not in seen:
                    seen.append(event['object'].metadata.name)
                if 'last' in seen:
                    w.stop()
        except ApiException as e:
            if e.status == 410:
                rv = None
            else:
                time.sleep(0.2)
        except Exception:
            # the server is away: try again shortly, from the resourceVersion reached
            time.sleep(0.2)
    return {'seen': seen}


if __name__ == '__main__':
    print(json.dumps(flows[sys.argv[2]](*sys.argv[3:]), default=str))
