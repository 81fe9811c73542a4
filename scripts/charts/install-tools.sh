#!/usr/bin/env bash
# Installs the chart tool chain under .cache/ (no Docker, no cluster, only package registries):
#   .cache/bin/{helm,kube-linter,kubeconform}   built with `go install` from the Go module proxy
#   .cache/venv + .cache/k8s-schemas            kubernetes-validate's v1.33.0 schemas, localized for kubeconform
#   .cache/skaffold/v4beta14.json               skaffold's config schema (module download only, no build)
# Idempotent: anything already present is skipped. Set FORCE=1 to rebuild everything.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

HELM_V=v3.21.4
HELM_KUBE_MINOR=36          # helm v3.21.x builds against k8s.io/* v0.36 (INFRA.md §2)
KUBE_LINTER_V=v0.8.3
KUBECONFORM_V=v0.7.0
KUBERNETES_VALIDATE_V=1.37.0
K8S_SCHEMA_V=v1.33.0
SKAFFOLD_V=v2.24.0
SKAFFOLD_SCHEMA=v4beta14

export GOMODCACHE=$ROOT/.cache/go/mod GOCACHE=$ROOT/.cache/go/build GOBIN=$ROOT/.cache/bin
export GOFLAGS=-modcacherw GOTOOLCHAIN=local CGO_ENABLED=0
mkdir -p "$GOBIN" "$GOMODCACHE" "$GOCACHE"

T0=$(date +%s)
step() { # step <name> <command...>: runs and prints the elapsed seconds
  local name=$1; shift; local s; s=$(date +%s)
  echo "==> $name"
  "$@"
  echo "    $name: $(( $(date +%s) - s ))s"
}
need() { [ "${FORCE:-0}" = 1 ] || [ ! -e "$1" ]; }

install_helm() {
  go install -trimpath -ldflags "-s -w \
    -X helm.sh/helm/v3/internal/version.version=$HELM_V \
    -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$HELM_KUBE_MINOR \
    -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$HELM_KUBE_MINOR" \
    "helm.sh/helm/v3/cmd/helm@$HELM_V"
}
install_kube_linter() {
  # kube-linter's module path is golang.stackrox.io/kube-linter, a host the module proxy here refuses
  # (403 "module-host allowlist"), so `go install golang.stackrox.io/...@v` cannot work. The same module
  # is served under its repository path, github.com/stackrox/kube-linter; a throw-away wrapper module
  # maps one onto the other with a replace (kube-linter itself has no replace directives, so the build
  # list is upstream's) and builds the command from it.
  local w=.cache/kube-linter-build
  rm -rf "$w" && mkdir -p "$w"
  cat > "$w/go.mod" <<GOMOD
module local/kube-linter-build

go 1.25.5

require golang.stackrox.io/kube-linter $KUBE_LINTER_V

replace golang.stackrox.io/kube-linter => github.com/stackrox/kube-linter $KUBE_LINTER_V
GOMOD
  (cd "$w" && go build -mod=mod -trimpath \
    -ldflags "-s -w -X golang.stackrox.io/kube-linter/internal/version.version=${KUBE_LINTER_V#v}" \
    -o "$GOBIN/kube-linter" golang.stackrox.io/kube-linter/cmd/kube-linter)
}
install_kubeconform() {
  go install -trimpath -ldflags "-s -w -X main.version=$KUBECONFORM_V" "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_V"
}
install_schemas() {
  [ -x .cache/venv/bin/python ] || python3 -m venv .cache/venv
  .cache/venv/bin/pip install -q --disable-pip-version-check "kubernetes-validate==$KUBERNETES_VALIDATE_V"
  local src
  src=$(.cache/venv/bin/python -c "import kubernetes_validate,os;print(os.path.join(os.path.dirname(kubernetes_validate.__file__),'kubernetes-json-schema'))")
  rm -rf .cache/k8s-schemas.tmp
  .cache/venv/bin/python scripts/charts/localize_schemas.py "$src/$K8S_SCHEMA_V-local-strict" ".cache/k8s-schemas.tmp/$K8S_SCHEMA_V-standalone-strict"
  .cache/venv/bin/python scripts/charts/localize_schemas.py "$src/$K8S_SCHEMA_V-local" ".cache/k8s-schemas.tmp/$K8S_SCHEMA_V-standalone"
  rm -rf .cache/k8s-schemas && mv .cache/k8s-schemas.tmp .cache/k8s-schemas
}
install_skaffold_schema() {
  local dir
  dir=$(go mod download -json "github.com/GoogleContainerTools/skaffold/v2@$SKAFFOLD_V" \
        | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  mkdir -p .cache/skaffold
  cp "$dir/docs-v2/content/en/schemas/$SKAFFOLD_SCHEMA.json" ".cache/skaffold/$SKAFFOLD_SCHEMA.json"
}

need .cache/bin/kubeconform && step "kubeconform $KUBECONFORM_V" install_kubeconform
need .cache/bin/helm        && step "helm $HELM_V" install_helm
need .cache/bin/kube-linter && step "kube-linter $KUBE_LINTER_V" install_kube_linter
need ".cache/k8s-schemas/$K8S_SCHEMA_V-standalone-strict/_definitions.json" \
                            && step "k8s schemas $K8S_SCHEMA_V (kubernetes-validate $KUBERNETES_VALIDATE_V)" install_schemas
need ".cache/skaffold/$SKAFFOLD_SCHEMA.json" && step "skaffold schema $SKAFFOLD_SCHEMA ($SKAFFOLD_V)" install_skaffold_schema

.cache/bin/helm version --short
.cache/bin/kube-linter version
.cache/bin/kubeconform -v
echo "install-tools: done in $(( $(date +%s) - T0 ))s"
