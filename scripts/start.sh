#!/usr/bin/env bash
# npm start: builds when a source changed, then runs the API server as the distributions run theirs: Node and
# RBAC authorization (anonymous requests may read health and version only; each controller then acts with its own
# service account and role), and the reference's API domain, so that stock kubectl and client libraries work in
# full. A flag given on the command line replaces the default of the same name, so
# `npm start -- --authorization-mode=AlwaysAllow` gives the server's bare default back.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/prepare.sh
given() { local a; for a in "${args[@]}"; do case "$a" in "--$1" | "--$1="*) return 0 ;; esac; done; return 1; }
args=("$@")
defaults=()
given api-domain || defaults+=(--api-domain=k8s.io)
given authorization-mode || defaults+=(--authorization-mode=Node,RBAC)
given allow-privileged || defaults+=(--allow-privileged=true)
exec node dist/bin/apiserver.js "${defaults[@]}" "$@"
