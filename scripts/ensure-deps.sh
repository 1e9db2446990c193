#!/usr/bin/env bash
# Installs the system packages the tests run for real (Debian's etcd-server) when they are missing.
set -euo pipefail
need=()
command -v etcd >/dev/null 2>&1 || need+=(etcd-server)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
  # Debian starts the packaged service; the tests run their own instances.
  $SUDO systemctl disable --now etcd >/dev/null 2>&1 || true
  pkill -x etcd >/dev/null 2>&1 || true
fi
