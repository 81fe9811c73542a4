{{/*
Shared helpers. Component templates call them with a context dict:
  (dict "root" $ "key" "manualTesting")
where "key" is the component's values block; its kebab-case form ("manual-testing") names the objects.
Chart-wide objects pass (dict "root" $).
*/}}

{{/* Fixed container ports (the same in every pod; the process reads them from the ConfigMap). */}}
{{- define "assay.port.public" -}}8080{{- end -}}
{{- define "assay.port.rpc" -}}7000{{- end -}}
{{- define "assay.port.http" -}}9000{{- end -}}

{{/* The component blocks, in a stable order. */}}
{{- define "assay.componentKeys" -}}gateway {{ include "assay.serviceKeys" . }}{{- end -}}

{{/* The services: Connect servers with their own Postgres schema and migrations (every component but the gateway). */}}
{{- define "assay.serviceKeys" -}}identity manualTesting runs analytics webhooks reports{{- end -}}

{{/* The components that use Kafka (runs publishes run events; analytics and webhooks consume them). */}}
{{- define "assay.kafkaClients" -}}runs analytics webhooks{{- end -}}

{{/* The components that use Redis (the gateway: limits, idempotency, auth cache; identity: auth-cache generations). */}}
{{- define "assay.redisClients" -}}gateway identity{{- end -}}

{{/*
Who calls whom, the one list of the chart (the code's is SERVICES[].callers in packages/testkit/src/topology.ts;
test/deploy checks they agree): per service, the components (block names) that call it, and `admin`, the
admin CLI's credential, where the service has admin RPCs. It makes both
  - each service's INTERNAL_CALLERS (name:sha256 of each caller's credential), and
  - the RPC ingress of its NetworkPolicy (and the callers' egress),
so a service accepts exactly the callers the network lets through. The admin CLI runs in the identity pods
(`kubectl exec`), so on the network `admin` is the identity pods (identity itself: the CLI calls it over
loopback) and the peers of networkPolicy.adminFrom.
*/}}
{{- define "assay.callerGraph" -}}
identity: [gateway, manualTesting, reports, admin]
manualTesting: [gateway, runs]
runs: [gateway, analytics, reports, admin]
analytics: [gateway, reports, admin]
webhooks: [gateway]
reports: [gateway]
{{- end -}}

{{/* The admin CLI's credential name, and the component whose pods it runs in. */}}
{{- define "assay.adminCaller" -}}admin{{- end -}}
{{- define "assay.adminHost" -}}identity{{- end -}}

{{/* Callers of a component, as a YAML list (empty for the gateway, which nothing calls over RPC): (dict "root" $ "key" ...). */}}
{{- define "assay.callers" -}}
{{- toYaml (dict "callers" (get (include "assay.callerGraph" .root | fromYaml) .key | default list)) -}}
{{- end -}}

{{/* Whether admin RPCs are among a component's calls (its callers list `admin`). */}}
{{- define "assay.hasAdminCaller" -}}
{{- if has (include "assay.adminCaller" .) (get (include "assay.callers" . | fromYaml) "callers") -}}true{{- end -}}
{{- end -}}

{{/*
The components admitted on a component's RPC port, as a YAML list: its callers, with `admin` standing for the
pods the admin CLI runs in (none when that is the component itself: loopback).
*/}}
{{- define "assay.rpcPeerKeys" -}}
{{- $admin := include "assay.adminCaller" . -}}
{{- $host := include "assay.adminHost" . -}}
{{- $out := list -}}
{{- range $c := get (include "assay.callers" . | fromYaml) "callers" -}}
{{- if ne $c $admin -}}
{{- $out = append $out $c -}}
{{- else if ne $.key $host -}}
{{- $out = append $out $host -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "keys" (uniq $out)) -}}
{{- end -}}

{{- define "assay.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "assay.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* "manualTesting" -> "manual-testing" */}}
{{- define "assay.componentName" -}}
{{- kebabcase .key -}}
{{- end -}}

{{/* <fullname>-<component>, at most 63 characters (leaves room for the "-migrate" suffix at 55). */}}
{{- define "assay.componentFullname" -}}
{{- printf "%s-%s" (include "assay.fullname" .root | trunc 40 | trimSuffix "-") (include "assay.componentName" .) | trunc 55 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels on every object; with a "key", also the component. */}}
{{- define "assay.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "assay.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: assay
{{- if .key }}
app.kubernetes.io/component: {{ include "assay.componentName" . }}
{{- end }}
{{- with .root.Values.global.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Selector labels of a component's pods (immutable: never add to them). */}}
{{- define "assay.selectorLabels" -}}
app.kubernetes.io/name: {{ include "assay.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ include "assay.componentName" . }}
{{- end -}}

{{/* Labels of the migration Job pods (all components). */}}
{{- define "assay.migrationsSelectorLabels" -}}
app.kubernetes.io/name: {{ include "assay.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: migrations
{{- end -}}

{{- define "assay.serviceAccountName" -}}
{{- $c := index .root.Values .key -}}
{{- if $c.serviceAccount.create -}}
{{- default (include "assay.componentFullname" .) $c.serviceAccount.name -}}
{{- else -}}
{{- default "default" $c.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "assay.image" -}}
{{- $c := index .root.Values .key -}}
{{- $g := .root.Values.global -}}
{{- $repo := $c.image.repository -}}
{{- if $g.imageRegistry -}}{{- $repo = printf "%s/%s" (trimSuffix "/" $g.imageRegistry) $repo -}}{{- end -}}
{{- if $c.image.digest -}}
{{- printf "%s@%s" $repo $c.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repo (toString ($c.image.tag | default $g.imageTag | default .root.Chart.AppVersion)) -}}
{{- end -}}
{{- end -}}

{{/* In-cluster URL of a component: (dict "root" $ "key" "runs" "port" "7000"). */}}
{{- define "assay.url" -}}
{{- printf "http://%s.%s.svc:%s" (include "assay.componentFullname" .) .root.Release.Namespace .port -}}
{{- end -}}

{{/*
  The headless Service of a service's RPC port: its name resolves to every ready pod, and the kit's clients deal
  their calls over them (packages/service-kit/src/replicas.ts). Through the ClusterIP Service, one HTTP/2
  connection carried all of a pod's calls to the one replica it happened to reach.
*/}}
{{- define "assay.rpcServiceName" -}}
{{- printf "%s-rpc" (include "assay.componentFullname" .) -}}
{{- end -}}

{{- define "assay.rpcUrl" -}}
{{- printf "http://%s.%s.svc:%s" (include "assay.rpcServiceName" .) .root.Release.Namespace .port -}}
{{- end -}}

{{/* ---------------------------------------------------------------- secrets */}}

{{/* ---------------------------------------------------------------- dev infrastructure */}}

{{/* In-cluster host of a dev instance: (dict "root" $ "key" "postgresql"|"redis"|"kafka"). */}}
{{- define "assay.dev.host" -}}
{{- printf "%s.%s.svc" (include "assay.componentFullname" .) .root.Release.Namespace -}}
{{- end -}}

{{- define "assay.kafkaBrokers" -}}
{{- if .Values.dev.enabled -}}
{{- printf "%s:9092" (include "assay.dev.host" (dict "root" . "key" "kafka")) -}}
{{- else -}}
{{- .Values.config.kafkaBrokers -}}
{{- end -}}
{{- end -}}

{{/* Whether a component's migrations run as hook Jobs (services only; off in dev mode: the processes migrate at start). */}}
{{- define "assay.migrationsHook" -}}
{{- if ne .key "gateway" -}}{{- /* the gateway has no schema */ -}}
{{- $c := index .root.Values .key -}}
{{- if and $c.enabled $c.migrations.enabled (not .root.Values.dev.enabled) -}}true{{- end -}}
{{- end -}}
{{- end -}}

{{- define "assay.anyMigrationsHook" -}}
{{- range $k := splitList " " (include "assay.serviceKeys" .) -}}
{{- include "assay.migrationsHook" (dict "root" $ "key" $k) -}}
{{- end -}}
{{- end -}}

{{/*
Whether runs reads S3 keys from the Secret: with dev (the dev server's generated keys), inline keys, or an
existingSecret that says it holds them (secrets.existingSecretHasS3Keys). Otherwise the SDK's default chain
applies (e.g. an IAM role for the ServiceAccount).
*/}}
{{- define "assay.s3Credentials" -}}
{{- $s := .Values.secrets -}}
{{- if and (eq .Values.artifacts.storage "s3") (or .Values.dev.enabled (and (not $s.existingSecret) $s.s3AccessKeyId) (and $s.existingSecret $s.existingSecretHasS3Keys)) -}}true{{- end -}}
{{- end -}}

{{- define "assay.secretName" -}}
{{- .Values.secrets.existingSecret | default (include "assay.fullname" .) -}}
{{- end -}}

{{/* The migration hooks run before the release's regular objects exist, so with inline secrets they
     read a hook-managed copy (deleted once the hooks succeed). */}}
{{- define "assay.migrationsSecretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-migrations" (include "assay.fullname" .)) -}}
{{- end -}}

{{/* The credential names: one per component (its INTERNAL_AUTH_TOKEN) and the admin CLI's. */}}
{{- define "assay.credentialNames" -}}{{ include "assay.componentKeys" . }} {{ include "assay.adminCaller" . }}{{- end -}}

{{/* The name a caller has in INTERNAL_CALLERS: the component's object name ("manual-testing"), or "admin". */}}
{{- define "assay.callerName" -}}{{ kebabcase .key }}{{- end -}}

{{/*
Inline secret data (key -> plain value), resolved once per render and memoized so the regular and
the hook Secret agree: an empty credential (secrets.internalAuthTokens.<name>) or secretsKey is taken from
the Secret already in the cluster (upgrades) or generated (first install).
*/}}
{{- define "assay.secrets.resolved" -}}
{{- $s := .Values.secrets -}}
{{- if not (hasKey $s "__resolved") -}}
{{- $existing := dict -}}
{{- with lookup "v1" "Secret" .Release.Namespace (include "assay.fullname" .) -}}
{{- $existing = .data | default dict -}}
{{- end -}}
{{- $r := dict -}}
{{- if .Values.dev.enabled -}}
{{- /* dev: the in-cluster instances; the PostgreSQL password is generated once and kept like the others */ -}}
{{- $pw := get $existing "DEV_POSTGRES_PASSWORD" | b64dec | default (randAlphaNum 32) -}}
{{- $_ := set $r "DEV_POSTGRES_PASSWORD" $pw -}}
{{- $_ = set $r $s.keys.databaseUrl (printf "postgres://assay:%s@%s:5432/assay" $pw (include "assay.dev.host" (dict "root" . "key" "postgresql"))) -}}
{{- $_ = set $r $s.keys.redisUrl (printf "redis://%s:6379/0" (include "assay.dev.host" (dict "root" . "key" "redis"))) -}}
{{- else -}}
{{- $_ := set $r $s.keys.databaseUrl $s.databaseUrl -}}
{{- $_ = set $r $s.keys.redisUrl $s.redisUrl -}}
{{- end -}}
{{- range $name := splitList " " (include "assay.credentialNames" .) -}}
{{- $key := get $s.keys.internalAuthTokens $name -}}
{{- $_ := set $r $key ((get $s.internalAuthTokens $name) | default (get $existing $key | b64dec) | default (randAlphaNum 48)) -}}
{{- end -}}
{{- $_ := set $r $s.keys.secretsKey ($s.secretsKey | default (get $existing $s.keys.secretsKey | b64dec) | default (randAlphaNum 48)) -}}
{{- if .Values.dev.enabled -}}
{{- /* the dev S3 server's root keys, generated once and kept; runs uses the same */ -}}
{{- $_ = set $r $s.keys.s3AccessKeyId ($s.s3AccessKeyId | default (get $existing $s.keys.s3AccessKeyId | b64dec) | default (printf "assay%s" (randAlphaNum 16 | lower))) -}}
{{- $_ = set $r $s.keys.s3SecretAccessKey ($s.s3SecretAccessKey | default (get $existing $s.keys.s3SecretAccessKey | b64dec) | default (randAlphaNum 40)) -}}
{{- else if $s.s3AccessKeyId -}}
{{- $_ = set $r $s.keys.s3AccessKeyId $s.s3AccessKeyId -}}
{{- $_ = set $r $s.keys.s3SecretAccessKey $s.s3SecretAccessKey -}}
{{- end -}}
{{- $_ = set $s "__resolved" $r -}}
{{- end -}}
{{- toYaml (get $s "__resolved") -}}
{{- end -}}

{{/*
INTERNAL_CALLERS of a service computed from the chart-made Secret: `name:sha256hex` of each caller of
assay.callerGraph, comma-separated (Sprig's sha256sum is lower-case hex, as the services expect). Only with
inline secrets: with secrets.existingSecret the chart cannot see the credentials, and the services read
INTERNAL_CALLERS from that Secret (secrets.keys.internalCallers).
*/}}
{{- define "assay.internalCallers" -}}
{{- $root := .root -}}
{{- $resolved := include "assay.secrets.resolved" $root | fromYaml -}}
{{- $out := list -}}
{{- range $c := get (include "assay.callers" . | fromYaml) "callers" -}}
{{- $token := get $resolved (get $root.Values.secrets.keys.internalAuthTokens $c) -}}
{{- $out = append $out (printf "%s:%s" (include "assay.callerName" (dict "key" $c)) (sha256sum $token)) -}}
{{- end -}}
{{- join "," $out -}}
{{- end -}}

{{/*
Refuses what the schema cannot express: two settings sharing a Secret key (two components would then share
one credential), two inline credentials with the same value, and a `migrations` block for the gateway.
*/}}
{{- define "assay.validate" -}}
{{- $s := .Values.secrets -}}
{{- $seen := dict -}}
{{- $named := list (list "databaseUrl" $s.keys.databaseUrl) (list "redisUrl" $s.keys.redisUrl) (list "secretsKey" $s.keys.secretsKey) (list "s3AccessKeyId" $s.keys.s3AccessKeyId) (list "s3SecretAccessKey" $s.keys.s3SecretAccessKey) -}}
{{- range $name := splitList " " (include "assay.credentialNames" .) -}}
{{- $named = append $named (list (printf "internalAuthTokens.%s" $name) (get $s.keys.internalAuthTokens $name)) -}}
{{- end -}}
{{- range $name := splitList " " (include "assay.serviceKeys" .) -}}
{{- $named = append $named (list (printf "internalCallers.%s" $name) (get $s.keys.internalCallers $name)) -}}
{{- end -}}
{{- range $n := $named -}}
{{- $key := index $n 1 -}}
{{- if hasKey $seen $key -}}
{{- fail (printf "secrets.keys.%s and secrets.keys.%s are both %q: every setting needs its own Secret key (one credential per component)" (get $seen $key) (index $n 0) $key) -}}
{{- end -}}
{{- $_ := set $seen $key (index $n 0) -}}
{{- end -}}
{{- $values := dict -}}
{{- range $name := splitList " " (include "assay.credentialNames" .) -}}
{{- $v := get $s.internalAuthTokens $name -}}
{{- if $v -}}
{{- if hasKey $values $v -}}
{{- fail (printf "secrets.internalAuthTokens.%s and secrets.internalAuthTokens.%s are equal: every caller needs its own credential" (get $values $v) $name) -}}
{{- end -}}
{{- $_ := set $values $v $name -}}
{{- end -}}
{{- end -}}
{{- if hasKey .Values.gateway "migrations" -}}
{{- fail "gateway.migrations: the gateway has no tables and no migrations; remove the block" -}}
{{- end -}}
{{- end -}}

{{/* Secret environment of a component: (dict "root" $ "key" ... "secretName" ...). */}}
{{- define "assay.secretEnv" -}}
{{- $s := .root.Values.secrets -}}
{{- $k := $s.keys -}}
{{- $vars := list -}}
{{- if ne .key "gateway" -}}{{- $vars = append $vars (list "DATABASE_URL" $k.databaseUrl) -}}{{- end -}}
{{- /* its own credential, presented on every internal call it makes */ -}}
{{- $vars = append $vars (list "INTERNAL_AUTH_TOKEN" (get $k.internalAuthTokens .key)) -}}
{{- if has .key (splitList " " (include "assay.redisClients" .root)) -}}{{- $vars = append $vars (list "REDIS_URL" $k.redisUrl) -}}{{- end -}}
{{- if eq .key "webhooks" -}}{{- $vars = append $vars (list "SECRETS_KEY" $k.secretsKey) -}}{{- end -}}
{{- if and (eq .key "runs") (include "assay.s3Credentials" .root) -}}
{{- $vars = append $vars (list "S3_ACCESS_KEY_ID" $k.s3AccessKeyId) -}}
{{- $vars = append $vars (list "S3_SECRET_ACCESS_KEY" $k.s3SecretAccessKey) -}}
{{- end -}}
{{- if and $s.existingSecret (ne .key "gateway") -}}
{{- /* the callers' hashes: the chart cannot compute them from a Secret it does not see */ -}}
{{- $vars = append $vars (list "INTERNAL_CALLERS" (get $k.internalCallers .key)) -}}
{{- end -}}
{{- range $i, $v := $vars }}
{{- if $i }}{{ "\n" }}{{ end -}}
- name: {{ index $v 0 }}
  valueFrom:
    secretKeyRef:
      name: {{ $.secretName }}
      key: {{ index $v 1 }}
{{- end }}
{{- end -}}

{{/* ---------------------------------------------------------------- configuration */}}

{{/* Non-secret settings of a component as a key -> string map (ConfigMap data / Job env). */}}
{{- define "assay.configData" -}}
{{- $root := .root -}}
{{- $c := index $root.Values .key -}}
{{- $cfg := $root.Values.config -}}
{{- $rpc := include "assay.port.rpc" . -}}
{{- $http := include "assay.port.http" . -}}
{{- /* BIND_HOST: the processes listen on loopback unless told otherwise (their local-run default), which
       neither the kubelet's probes nor the other pods could reach. */ -}}
{{- $d := dict "LOG_LEVEL" $cfg.logLevel "BIND_HOST" "0.0.0.0" -}}
{{- if ne .key "gateway" -}}
{{- /* every service's RPC and HTTP ports and Kafka (the gateway has its own ports below, and no Kafka) */ -}}
{{- $_ := set $d "KAFKA_BROKERS" (include "assay.kafkaBrokers" $root) -}}
{{- $_ = set $d "RPC_PORT" $rpc -}}
{{- $_ = set $d "HTTP_PORT" $http -}}
{{- end -}}
{{- $svc := dict -}}
{{- range $k := splitList " " (include "assay.componentKeys" .) -}}
{{- $ctx := dict "root" $root "key" $k -}}
{{- $_ := set $svc $k (include "assay.rpcUrl" (merge (dict "port" $rpc) $ctx)) -}}
{{- $_ := set $svc (printf "%sHttp" $k) (include "assay.url" (merge (dict "port" $http) $ctx)) -}}
{{- end -}}
{{- if eq .key "gateway" -}}
{{- $_ := set $d "PORT" (include "assay.port.public" .) -}}
{{- $_ = set $d "METRICS_PORT" $http -}}
{{- $_ = set $d "PUBLIC_UI_URL" $cfg.publicUiUrl -}}
{{- $_ = set $d "TRUSTED_PROXY_HOPS" (ternary "1" "0" $root.Values.ingress.enabled) -}}
{{- $lim := $root.Values.limits -}}
{{- $_ = set $d "RATE_LIMITS" $lim.rateLimits -}}
{{- $_ = set $d "IDEMPOTENCY_TTL_SECONDS" (toString (int $lim.idempotencyTtlSeconds)) -}}
{{- $_ = set $d "PUBLIC_BODY_LIMIT_BYTES" (toString (int $lim.publicBodyLimitBytes)) -}}
{{- $_ = set $d "INGEST_BODY_LIMIT_BYTES" (toString (int $lim.ingestBodyLimitBytes)) -}}
{{- $_ = set $d "ARTIFACT_MAX_FILE_BYTES" (toString (int64 $root.Values.artifacts.maxFileBytes)) -}}
{{- $_ = set $d "REQUEST_TIMEOUT_MS" (toString (int $lim.requestTimeoutMs)) -}}
{{- $_ = set $d "ARTIFACT_UPLOAD_IDLE_TIMEOUT_MS" (toString (int $root.Values.artifacts.uploadIdleTimeoutMs)) -}}
{{- $_ = set $d "MAX_HEADER_BYTES" (toString (int $lim.maxHeaderBytes)) -}}
{{- $_ = set $d "IDENTITY_URL" $svc.identity -}}
{{- $_ = set $d "MANUAL_TESTING_URL" $svc.manualTesting -}}
{{- $_ = set $d "RUNS_URL" $svc.runs -}}
{{- $_ = set $d "RUNS_HTTP_URL" $svc.runsHttp -}}
{{- $_ = set $d "ANALYTICS_URL" $svc.analytics -}}
{{- $_ = set $d "WEBHOOKS_URL" $svc.webhooks -}}
{{- $_ = set $d "REPORTS_URL" $svc.reports -}}
{{- $_ = set $d "REPORTS_HTTP_URL" $svc.reportsHttp -}}
{{- end -}}
{{- if has .key (list "manualTesting" "reports") -}}
{{- /* identity's RPC (organization members, projects); the other services do not read it */ -}}
{{- $_ := set $d "IDENTITY_URL" $svc.identity -}}
{{- end -}}
{{- if and (ne .key "gateway") (not $root.Values.secrets.existingSecret) -}}
{{- /* hashes only, computed by the chart from its own Secret (with existingSecret: from that Secret) */ -}}
{{- $_ := set $d "INTERNAL_CALLERS" (include "assay.internalCallers" .) -}}
{{- end -}}
{{- if eq .key "runs" -}}
{{- $_ := set $d "PUBLIC_UI_URL" $cfg.publicUiUrl -}}
{{- $_ = set $d "MANUAL_TESTING_URL" $svc.manualTesting -}}
{{- $_ = set $d "INGEST_BODY_LIMIT_BYTES" (toString (int $root.Values.limits.ingestBodyLimitBytes)) -}}
{{- /* large bodies parsed at once per pod, each spooled to /tmp (see runs.tmpSizeLimit) */ -}}
{{- $_ = set $d "INGEST_MAX_LARGE_UPLOADS" "4" -}}
{{- /* artifacts: object storage (README "Artifacts"); credentials come from the Secret (assay.secretEnv) */ -}}
{{- $a := $root.Values.artifacts -}}
{{- $_ = set $d "ARTIFACT_STORAGE" $a.storage -}}
{{- $_ = set $d "ARTIFACT_DIR" $a.dir -}}
{{- $_ = set $d "ARTIFACT_MAX_FILE_BYTES" (toString (int64 $a.maxFileBytes)) -}}
{{- $_ = set $d "ARTIFACT_MAX_RUN_BYTES" (toString (int64 $a.maxRunBytes)) -}}
{{- $_ = set $d "ARTIFACT_RETENTION_DAYS" (toString (int $a.retentionDays)) -}}
{{- $_ = set $d "ARTIFACT_URL_TTL_SECONDS" (toString (int $a.urlTtlSeconds)) -}}
{{- if eq $a.storage "s3" -}}
{{- if $root.Values.dev.enabled -}}
{{- /* the dev S3 server: path-style, and the bucket made at start */ -}}
{{- $_ = set $d "S3_ENDPOINT" (printf "http://%s:7070" (include "assay.dev.host" (dict "root" $root "key" "s3"))) -}}
{{- $_ = set $d "S3_FORCE_PATH_STYLE" "true" -}}
{{- $_ = set $d "S3_CREATE_BUCKET" "true" -}}
{{- else -}}
{{- with $a.s3.endpoint }}{{ $_ := set $d "S3_ENDPOINT" . }}{{ end -}}
{{- $_ = set $d "S3_FORCE_PATH_STYLE" (toString $a.s3.forcePathStyle) -}}
{{- end -}}
{{- $_ = set $d "S3_BUCKET" $a.s3.bucket -}}
{{- $_ = set $d "S3_REGION" $a.s3.region -}}
{{- end -}}
{{- else if eq .key "identity" -}}
{{- /* invitation and sign-in links point at the web app; web app sessions and their retention (identity.config overrides) */ -}}
{{- $_ := set $d "PUBLIC_UI_URL" $cfg.publicUiUrl -}}
{{- $_ = set $d "SESSION_IDLE_HOURS" "24" -}}
{{- $_ = set $d "SESSION_MAX_DAYS" "30" -}}
{{- $_ = set $d "SESSION_RETENTION_DAYS" "30" -}}
{{- $_ = set $d "SESSION_SWEEP_INTERVAL_SECONDS" "3600" -}}
{{- else if eq .key "analytics" -}}
{{- /* read-model defaults (README "Analytics"); any key in analytics.config overrides these */ -}}
{{- $_ := set $d "RUNS_URL" $svc.runs -}}
{{- $_ = set $d "ANALYTICS_CONSUMER_GROUP" "analytics" -}}
{{- $_ = set $d "ANALYTICS_SLOW_TEST_MIN_MS" "1000" -}}
{{- $_ = set $d "ANALYTICS_SLOW_TEST_FACTOR" "2" -}}
{{- $_ = set $d "ANALYTICS_REBUILD_ON_EMPTY" "true" -}}
{{- $_ = set $d "ANALYTICS_REBUILD_BATCH_RESULTS" "50000" -}}
{{- $_ = set $d "ANALYTICS_ROLL_INTERVAL_MS" "60000" -}}
{{- $_ = set $d "ANALYTICS_READ_CACHE_ENTRIES" "100" -}}
{{- else if eq .key "reports" -}}
{{- $_ := set $d "ANALYTICS_URL" $svc.analytics -}}
{{- $_ = set $d "RUNS_URL" $svc.runs -}}
{{- /* generator and sweeper defaults; the retention is in values (reports.config), and any key there
       overrides these */ -}}
{{- $_ = set $d "REPORT_RETENTION_DAYS" "30" -}}
{{- $_ = set $d "REPORT_SWEEP_INTERVAL_SECONDS" "3600" -}}
{{- $_ = set $d "REPORT_GENERATION_TIMEOUT_SECONDS" "120" -}}
{{- $_ = set $d "REPORT_MAX_ATTEMPTS" "3" -}}
{{- $_ = set $d "REPORT_RETRY_DELAY_SECONDS" "10" -}}
{{- $_ = set $d "REPORT_CONCURRENCY" "2" -}}
{{- $_ = set $d "REPORT_POLL_INTERVAL_MS" "1000" -}}
{{- else if eq .key "webhooks" -}}
{{- /* dispatcher, consumer and sweeper defaults; the retry schedule, timeout, SSRF switch and delivery
       retention are in values (webhooks.config), and any key there overrides these */ -}}
{{- $_ := set $d "WEBHOOK_CONCURRENCY" "32" -}}
{{- $_ = set $d "WEBHOOK_POLL_INTERVAL_MS" "250" -}}
{{- $_ = set $d "WEBHOOK_CONSUMER_GROUP" "webhooks" -}}
{{- $_ = set $d "WEBHOOK_DELIVERY_RETENTION_DAYS" "30" -}}
{{- $_ = set $d "WEBHOOK_DELIVERY_SWEEP_INTERVAL_SECONDS" "3600" -}}
{{- end -}}
{{- range $name, $value := $c.config -}}
{{- $_ := set $d $name (toString $value) -}}
{{- end -}}
{{- toYaml $d -}}
{{- end -}}

{{/* ---------------------------------------------------------------- pod pieces */}}

{{- define "assay.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .tmpSizeLimit }}
{{- end -}}

{{- define "assay.imagePullSecrets" -}}
{{- with .root.Values.global.imagePullSecrets -}}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end -}}
{{- end -}}

{{/* Probes: the chart picks the handler, the values block the timings. */}}
{{- define "assay.probes" -}}
{{- $c := index .root.Values .key -}}
{{- $live := dict -}}
{{- $ready := dict -}}
{{- if eq .key "gateway" -}}
{{- $live = dict "httpGet" (dict "path" "/healthz" "port" "http") -}}
{{- $ready = dict "httpGet" (dict "path" "/readyz" "port" "http") -}}
{{- else -}}
{{- /* liveness/startup ask for "liveness" (the process answers); readiness for "" (dependencies up, not draining) */ -}}
{{- $live = dict "grpc" (dict "port" (include "assay.port.rpc" . | atoi) "service" "liveness") -}}
{{- $ready = dict "grpc" (dict "port" (include "assay.port.rpc" . | atoi)) -}}
{{- end -}}
livenessProbe:
  {{- toYaml (merge (deepCopy $live) $c.livenessProbe) | nindent 2 }}
readinessProbe:
  {{- toYaml (merge (deepCopy $ready) $c.readinessProbe) | nindent 2 }}
startupProbe:
  {{- toYaml (merge (deepCopy $live) $c.startupProbe) | nindent 2 }}
{{- end -}}

{{- define "assay.containerPorts" -}}
{{- if eq .key "gateway" -}}
- name: http
  containerPort: {{ include "assay.port.public" . }}
  protocol: TCP
- name: metrics
  containerPort: {{ include "assay.port.http" . }}
  protocol: TCP
{{- else -}}
- name: grpc
  containerPort: {{ include "assay.port.rpc" . }}
  protocol: TCP
- name: http
  containerPort: {{ include "assay.port.http" . }}
  protocol: TCP
{{- end -}}
{{- end -}}

{{- define "assay.affinity" -}}
{{- $c := index .root.Values .key -}}
{{- if $c.affinity -}}
{{- toYaml $c.affinity -}}
{{- else -}}
podAntiAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm:
        topologyKey: kubernetes.io/hostname
        labelSelector:
          matchLabels:
            {{- include "assay.selectorLabels" . | nindent 12 }}
{{- end -}}
{{- end -}}
