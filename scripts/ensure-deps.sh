#!/usr/bin/env bash
# Installs the system packages the tests run for real when they are missing: Debian's etcd-server,
# containerd, runc, busybox-static, the CNI plugins and iptables (host ports) for the node agent's real
# runtime, and python3-kubernetes (the Python client library the end-to-end tests drive the server with).
set -euo pipefail
need=()
command -v etcd >/dev/null 2>&1 || need+=(etcd-server)
command -v containerd >/dev/null 2>&1 || need+=(containerd)
command -v runc >/dev/null 2>&1 || need+=(runc)
/usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1 || need+=(python3-kubernetes)
[ -x /usr/lib/cni/bridge ] || [ -x /opt/cni/bin/bridge ] || need+=(containernetworking-plugins)
command -v iptables >/dev/null 2>&1 || need+=(iptables)
# the test image copies busybox into an empty root: it must be the static build
{ [ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1; } || need+=(busybox-static)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
  # Debian starts the packaged service; the tests run their own instances.
  $SUDO systemctl disable --now etcd containerd >/dev/null 2>&1 || true
  pkill -x etcd >/dev/null 2>&1 || true
fi
