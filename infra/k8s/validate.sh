#!/usr/bin/env bash
# Validates the Kubernetes manifests against the API schemas, offline: kubernetes-validate (PyPI) ships them.
#   infra/k8s/validate.sh install   → only create the cached venv (CI does it ahead of the tests)
#   infra/k8s/validate.sh           → validate every manifest kustomization.yaml lists (strict: unknown fields fail)
#   infra/k8s/validate.sh FILE...   → validate those files
# The venv lives in ~/.cache/formgate/k8s-validate-venv-<version> (fg_pip_venv).
set -euo pipefail
FG_COMPONENT=k8s-validate
source "$(dirname "${BASH_SOURCE[0]}")/../local/lib.sh"

VALIDATOR_VERSION=1.37.0
# The Kubernetes versions the manifests must be valid for: the oldest we support and the newest the validator knows.
KUBERNETES_VERSIONS=(1.33.0 1.37.0)
venv="$FG_CACHE_DIR/k8s-validate-venv-$VALIDATOR_VERSION"
bin="$venv/bin/kubernetes-validate"

fg_pip_venv "$venv" "kubernetes-validate==$VALIDATOR_VERSION"
[[ "${1:-}" == install ]] && exit 0

dir="$FG_REPO_DIR/infra/k8s"
if (( $# > 0 )); then
  files=("$@")
else
  # The resources kustomization.yaml lists (kustomize itself is not needed: it only adds labels and the image).
  mapfile -t files < <(sed -n '/^resources:/,/^[a-z]/s/^  - \(.*\.yaml\)$/\1/p' "$dir/kustomization.yaml" | sed "s#^#$dir/#")
  files+=("$dir/secret.example.yaml")
fi
(( ${#files[@]} > 0 )) || fg_die "no manifests to validate"
for v in "${KUBERNETES_VERSIONS[@]}"; do
  "$bin" --strict --quiet -k "$v" "${files[@]}" || fg_die "manifests are not valid for Kubernetes $v"
done
fg_log "valid for Kubernetes ${KUBERNETES_VERSIONS[*]}: ${#files[@]} files"
