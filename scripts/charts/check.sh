#!/usr/bin/env bash
# Offline checks of the Kubernetes deployment side (no cluster, no Docker, no network):
#   helm lint (strict) -> helm template (a matrix: defaults, values-dev.yaml, values-prod.yaml, ci/*.yaml)
#   -> kubeconform (strict, local v1.33.0 schemas) -> kube-linter (.kube-linter.yaml, zero findings)
#   -> skaffold.yaml against skaffold's v4beta14 JSON schema -> docs/deploy.md's generated values reference
# plus negative checks proving each gate can fail. Tools come from scripts/charts/install-tools.sh.
# Exits non-zero on any failure; prints the time of each step.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
CHART=charts/assay
KUBE_VERSION=1.33.0
NAMESPACE=assay
OUT=.cache/charts-check
export PATH=$ROOT/.cache/bin:$PATH
export HELM_CACHE_HOME=$ROOT/.cache/helm/cache HELM_CONFIG_HOME=$ROOT/.cache/helm/config HELM_DATA_HOME=$ROOT/.cache/helm/data

for t in .cache/bin/helm .cache/bin/kubeconform .cache/bin/kube-linter .cache/skaffold/v4beta14.json \
         .cache/k8s-schemas/v$KUBE_VERSION-standalone-strict/_definitions.json; do
  [ -e "$t" ] || { echo "check.sh: missing $t; run scripts/charts/install-tools.sh first" >&2; exit 2; }
done
rm -rf "$OUT" && mkdir -p "$OUT"

FAILED=()
T0=$(date +%s.%N)
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1fs", b - a }'; }
step() { # step <name> <command...>: run, print status and time, remember failures
  local name=$1; shift; local s; s=$(date +%s.%N)
  echo "==> $name"
  if "$@"; then echo "    ok    $name ($(elapsed "$s"))"
  else echo "    FAIL  $name ($(elapsed "$s"))"; FAILED+=("$name"); fi
}
must_fail() { # must_fail <pattern> <command...>: succeeds only when the command fails AND says <pattern>
  local pattern=$1; shift
  local log; log=$("$@" 2>&1); local rc=$?
  printf '%s\n' "$log" | grep -E "$pattern" | sed 's/^/      | /' | head -5
  if [ $rc -eq 0 ]; then echo "    expected a failure, got success" >&2; return 1; fi
  if ! grep -qE "$pattern" <<<"$log"; then
    printf '%s\n' "$log" | sed 's/^/      | /' | head -20
    echo "    failed, but not with /$pattern/" >&2; return 1
  fi
}
expect_kinds() { # expect_kinds <file> <Kind=count>...: the rendered objects are the expected ones
  local file=$1; shift; local ok=0 pair kind want got
  for pair in "$@"; do
    kind=${pair%=*}; want=${pair#*=}
    got=$(grep -c "^kind: $kind\$" "$file" || true)
    if [ "$got" != "$want" ]; then echo "    $file: $got $kind, expected $want" >&2; ok=1; fi
  done
  return $ok
}

# ---- helm: the matrix of values sets (name:file; an empty file = the chart's defaults)
VALUES_SETS=(
  "default:"
  "dev:$CHART/values-dev.yaml"
  "prod:$CHART/values-prod.yaml"
  "external:$CHART/ci/external-values.yaml"
  "autoscaling:$CHART/ci/autoscaling-values.yaml"
  "no-network-policies:$CHART/ci/no-network-policies-values.yaml"
)
# Every values file of the chart is in the matrix (a new one cannot be forgotten).
matrix_is_complete() {
  local f missing=0
  for f in "$CHART"/values-*.yaml "$CHART"/ci/*.yaml; do
    printf '%s\n' "${VALUES_SETS[@]}" | grep -q ":$f\$" || { echo "    $f is not in VALUES_SETS" >&2; missing=1; }
  done
  return $missing
}
step "every values file is in the matrix" matrix_is_complete
render() { # render <name> [values file]
  local args=(template assay "$CHART" --namespace "$NAMESPACE" --kube-version "$KUBE_VERSION")
  [ -n "${2:-}" ] && args+=(-f "$2")
  helm "${args[@]}" > "$OUT/rendered-$1.yaml"
}
for set in "${VALUES_SETS[@]}"; do
  name=${set%%:*}; file=${set#*:}
  step "helm lint --strict ($name values)" helm lint --strict --kube-version "$KUBE_VERSION" ${file:+-f "$file"} "$CHART"
  step "helm template ($name values)" render "$name" "$file"
done
cp "$OUT/rendered-default.yaml" .cache/rendered.yaml
# NOTES.txt is not part of `helm template` output (and `helm install --dry-run` needs a cluster here):
# render it through a throw-away template in a copy of the chart.
render_notes() {
  rm -rf "$OUT/notes-chart" && mkdir -p "$OUT/notes-chart" && cp -R "$CHART" "$OUT/notes-chart/" || return 1
  printf '%s\n' 'notes: |' '{{ include "assay/templates/NOTES.txt" . | indent 2 }}' \
    > "$OUT/notes-chart/assay/templates/zz-notes.yaml"
  local set name file
  for set in "${VALUES_SETS[@]}"; do
    name=${set%%:*}; file=${set#*:}
    helm template assay "$OUT/notes-chart/assay" --namespace "$NAMESPACE" --kube-version "$KUBE_VERSION" \
      ${file:+-f "$file"} --show-only templates/zz-notes.yaml > "$OUT/notes-$name.yaml" || return 1
    # The admin CLI line: kubectl exec into identity with the admin credential (its Secret key).
    grep -q 'exec deploy/assay-identity' "$OUT/notes-$name.yaml" || return 1
    grep -q 'INTERNAL_AUTH_TOKEN_ADMIN' "$OUT/notes-$name.yaml" || return 1
  done
}
step "NOTES.txt renders" render_notes
# Per component: Deployment, Service, ServiceAccount, ConfigMap, NetworkPolicy, PDB (x7: the gateway and six
# services) and, per service, a migration Job and a headless RPC Service (x6: the gateway has neither); chart-wide: the release
# default-deny and migrations NetworkPolicies, the migrations ServiceAccount, the inline Secret and its hook
# copy. dev: + PostgreSQL, Redis, Kafka, S3 (Deployment, Service, ServiceAccount, NetworkPolicy; Kafka's
# ConfigMap), no migration Jobs (the processes migrate at start).
step "rendered objects (default values)" expect_kinds "$OUT/rendered-default.yaml" \
  Deployment=7 Service=13 ServiceAccount=8 ConfigMap=7 NetworkPolicy=9 PodDisruptionBudget=7 Job=6 Secret=2 \
  HorizontalPodAutoscaler=0 Ingress=0
step "rendered objects (dev values)" expect_kinds "$OUT/rendered-dev.yaml" \
  Deployment=11 Service=17 ServiceAccount=11 ConfigMap=8 NetworkPolicy=12 PodDisruptionBudget=7 Job=0 Secret=1 \
  HorizontalPodAutoscaler=0 Ingress=0
step "rendered objects (prod values)" expect_kinds "$OUT/rendered-prod.yaml" \
  Deployment=7 Service=13 ServiceAccount=8 ConfigMap=7 NetworkPolicy=9 PodDisruptionBudget=7 Job=6 Secret=0 \
  HorizontalPodAutoscaler=4 Ingress=0
step "rendered objects (external values)" expect_kinds "$OUT/rendered-external.yaml" \
  Deployment=7 Service=13 ServiceAccount=8 ConfigMap=7 NetworkPolicy=9 PodDisruptionBudget=7 Job=6 Secret=0 \
  HorizontalPodAutoscaler=3 Ingress=1
step "rendered objects (autoscaling values)" expect_kinds "$OUT/rendered-autoscaling.yaml" \
  Deployment=7 HorizontalPodAutoscaler=7 PodDisruptionBudget=7
step "rendered objects (no-network-policies values)" expect_kinds "$OUT/rendered-no-network-policies.yaml" \
  Deployment=7 NetworkPolicy=0
# dev: every component is pointed at the in-cluster instances, and only webhooks may leave the cluster.
dev_wiring() {
  local f=$OUT/rendered-dev.yaml
  grep -q 'KAFKA_BROKERS: "assay-kafka.assay.svc:9092"' "$f" &&
    [ "$(grep -c 'cidr: 0.0.0.0/0' "$f")" = 1 ] &&
    [ "$(grep -c 'cidr: 0.0.0.0/0' "$OUT/rendered-default.yaml")" = 1 ]
}
step "dev values: Kafka in-cluster; one egress to the outside (webhooks)" dev_wiring

# ---- kubeconform (strict: unknown fields fail; a missing schema is an error, never a skip)
kubeconform_run() {
  kubeconform -strict -summary -kubernetes-version "$KUBE_VERSION" -schema-location "$ROOT/.cache/k8s-schemas" "$@"
}
step "kubeconform (every values set)" kubeconform_run "$OUT"/rendered-*.yaml

# ---- kube-linter (all default checks + the extras in .kube-linter.yaml; any finding fails). One run
# per render: the two renders share names and a namespace, and cross-object checks (PDB vs replicas)
# must not mix them.
for set in "${VALUES_SETS[@]}"; do
  name=${set%%:*}; waive=()
  # Without NetworkPolicies every pod is non-isolated by definition: that set waives only this check.
  [ "$name" = no-network-policies ] && waive=(--exclude non-isolated-pod)
  step "kube-linter ($name values)" kube-linter lint --config .kube-linter.yaml --fail-if-no-objects-found \
    --fail-on-invalid-resource "${waive[@]}" "$OUT/rendered-$name.yaml"
done

# ---- skaffold.yaml against the v4beta14 schema
step "skaffold.yaml schema (v4beta14)" node scripts/charts/check-skaffold-schema.mjs .cache/skaffold skaffold.yaml

# ---- the image recipe (no Docker here to build it): LTS base pinned by digest, tini as PID 1, non-root
dockerfile_policy() {
  grep -Eq '^ARG NODE_IMAGE=node:[0-9]+-[a-z]+-slim@sha256:[0-9a-f]{64}$' Dockerfile || { echo "    base image not pinned by digest" >&2; return 1; }
  grep -q '^ENTRYPOINT \["/usr/bin/tini", "--"\]$' Dockerfile || { echo "    tini is not the entrypoint" >&2; return 1; }
  grep -q '^USER node$' Dockerfile || { echo "    the runtime user is not node" >&2; return 1; }
  # Commands in the chart must not replace the entrypoint (that would make node PID 1 again).
  ! grep -rn '^ *command:' "$CHART/templates" --include=*.tpl --include=*.yaml | grep -v '/dev/' || { echo "    a chart container overrides the entrypoint" >&2; return 1; }
}
step "Dockerfile: digest-pinned Node LTS base, tini entrypoint, non-root user" dockerfile_policy
# ---- docs/deploy.md: the values reference is generated from values.schema.json and values.yaml
step "docs/deploy.md values reference up to date" node scripts/charts/values-reference.mjs --check

# ---- negative checks: each gate must reject a known-bad input
NEG=$OUT/negative; mkdir -p "$NEG"
# A valid Deployment from the chart with a string replica count, and one with an unknown field.
awk 'BEGIN{RS="\n---\n"} /\nkind: Deployment\n/ {print; exit}' "$OUT/rendered-default.yaml" > "$NEG/deployment.yaml"
sed '0,/^  replicas: [0-9]*$/s//  replicas: "one"/' "$NEG/deployment.yaml" > "$NEG/replicas-one.yaml"
sed '0,/^  revisionHistoryLimit:/s//  revisonHistoryLimit:/' "$NEG/deployment.yaml" > "$NEG/unknown-field.yaml"
step "negative: the extracted Deployment passes kubeconform" kubeconform_run "$NEG/deployment.yaml"
step "negative: kubeconform rejects replicas: \"one\"" must_fail "/spec/replicas': got string" \
  kubeconform_run "$NEG/replicas-one.yaml"
step "negative: kubeconform rejects an unknown field" must_fail "'revisonHistoryLimit' not allowed" \
  kubeconform_run "$NEG/unknown-field.yaml"
# kube-linter: the same Deployment, privileged and writable.
sed -e 's/privileged: false/privileged: true/' -e 's/readOnlyRootFilesystem: true/readOnlyRootFilesystem: false/' \
  "$NEG/deployment.yaml" > "$NEG/privileged.yaml"
step "negative: kube-linter rejects a privileged, writable container" \
  must_fail "check: privileged-container.*|check: no-read-only-root-fs" kube-linter lint --config .kube-linter.yaml "$NEG/privileged.yaml"
# values.schema.json: a wrong type and an unknown key.
step "negative: values.schema.json rejects bad values" must_fail "replicaCount': got string|'imagee' not allowed" \
  helm template assay "$CHART" --kube-version "$KUBE_VERSION" --set runs.replicaCount=one --set gateway.imagee.tag=x
step "negative: values.schema.json rejects a short inline secretsKey" must_fail "secretsKey': minLength: got 5, want 32" \
  helm template assay "$CHART" --kube-version "$KUBE_VERSION" --set secrets.secretsKey=short
step "negative: values.schema.json rejects a short inline credential" \
  must_fail "internalAuthTokens/runs': minLength: got 5, want 32" \
  helm template assay "$CHART" --kube-version "$KUBE_VERSION" --set secrets.internalAuthTokens.runs=short
step "negative: values.schema.json rejects the old shared internalAuthToken" must_fail "'internalAuthToken' not allowed" \
  helm template assay "$CHART" --kube-version "$KUBE_VERSION" --set secrets.internalAuthToken=x
# The chart's own refusals (templates/shared/validate.yaml): a Secret key shared by two credentials, two equal
# inline credentials, migrations for the gateway.
step "negative: two components on one credential key are refused" \
  must_fail "internalAuthTokens.gateway and secrets.keys.internalAuthTokens.runs are both \"INTERNAL_AUTH_TOKEN_GATEWAY\"" \
  helm template assay "$CHART" --kube-version "$KUBE_VERSION" --set secrets.keys.internalAuthTokens.runs=INTERNAL_AUTH_TOKEN_GATEWAY
step "negative: two equal inline credentials are refused" \
  must_fail "internalAuthTokens.runs and secrets.internalAuthTokens.admin are equal" \
  helm template assay "$CHART" --kube-version "$KUBE_VERSION" \
  --set secrets.internalAuthTokens.runs=0123456789abcdef0123456789abcdef --set secrets.internalAuthTokens.admin=0123456789abcdef0123456789abcdef
step "negative: gateway.migrations is refused" must_fail "gateway.migrations: the gateway has no tables" \
  helm template assay "$CHART" --kube-version "$KUBE_VERSION" \
  --set-json 'gateway.migrations={"enabled":true,"backoffLimit":3,"activeDeadlineSeconds":600,"resources":{"requests":{},"limits":{}}}'
# values reference: a doc with a row removed, and a schema property without a description.
sed '/^| `limits.maxHeaderBytes` /d' docs/deploy.md > "$NEG/deploy.md"
step "negative: values reference check rejects a doc with a row removed" must_fail "deploy.md is out of date" \
  node scripts/charts/values-reference.mjs --check --doc "$NEG/deploy.md"
rm -rf "$NEG/chart" && mkdir -p "$NEG/chart" && cp -R "$CHART" "$NEG/chart/"
sed -i '/"description": "Host name\.",/d' "$NEG/chart/assay/values.schema.json"
step "negative: values reference check rejects a property without a description" \
  must_fail "no description for ingress\.hosts\[\]\.host" \
  node scripts/charts/values-reference.mjs --check --chart "$NEG/chart/assay"
# skaffold: a typo'd key.
sed 's/chartPath:/chartPth:/' skaffold.yaml > "$NEG/skaffold.yaml"
step "negative: skaffold schema rejects a typo'd key (chartPth)" must_fail "additional properties \(chartPth\)" \
  node scripts/charts/check-skaffold-schema.mjs .cache/skaffold "$NEG/skaffold.yaml" "$ROOT"
sed 's#/deploy/helm/releases/0/valuesFiles#/deploy/helm/release/0/valuesFiles#' skaffold.yaml > "$NEG/skaffold-patch.yaml"
step "negative: a profile patch to a missing path fails" must_fail "profile dev: patch add /deploy/helm/release/0/valuesFiles: no release" \
  node scripts/charts/check-skaffold-schema.mjs .cache/skaffold "$NEG/skaffold-patch.yaml" "$ROOT"
sed 's#charts/assay/values-dev.yaml#charts/assay/values-devel.yaml#' skaffold.yaml > "$NEG/skaffold-values.yaml"
step "negative: a profile naming a missing values file fails" must_fail "profile dev: charts/assay/values-devel.yaml does not exist" \
  node scripts/charts/check-skaffold-schema.mjs .cache/skaffold "$NEG/skaffold-values.yaml" "$ROOT"
# dev mode makes its own Secret: an existing one is refused with a clear message.
step "negative: dev.enabled with secrets.existingSecret is refused" must_fail "dev.enabled .*unset secrets.existingSecret" \
  helm template assay "$CHART" --kube-version "$KUBE_VERSION" -f "$CHART/values-dev.yaml" --set secrets.existingSecret=x

echo
echo "check.sh: $(elapsed "$T0") total"
if [ ${#FAILED[@]} -gt 0 ]; then
  printf 'check.sh: FAILED: %s\n' "${FAILED[@]}" >&2
  exit 1
fi
echo "check.sh: all checks passed"
