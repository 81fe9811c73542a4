{{/*
One named template per object kind, rendered from a component's values block. Every file under
templates/<component>/ is a one-line call, e.g.
  {{ include "assay.deployment" (dict "root" $ "key" "runs") }}
Nothing is rendered for a disabled component (<block>.enabled: false).
*/}}

{{- define "assay.deployment" -}}
{{- $root := .root -}}
{{- $c := index $root.Values .key -}}
{{- if $c.enabled -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "assay.componentFullname" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "assay.labels" . | nindent 4 }}
spec:
  {{- if not $c.autoscaling.enabled }}
  replicas: {{ $c.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 5
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 0
  selector:
    matchLabels:
      {{- include "assay.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      annotations:
        checksum/config: {{ include "assay.configData" . | sha256sum }}
        {{- if not $root.Values.secrets.existingSecret }}
        checksum/secret: {{ include "assay.secrets.resolved" $root | sha256sum }}
        {{- end }}
        {{- with $c.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      labels:
        {{- include "assay.labels" . | nindent 8 }}
        {{- with $c.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      restartPolicy: Always
      serviceAccountName: {{ include "assay.serviceAccountName" . }}
      automountServiceAccountToken: false
      enableServiceLinks: false
      {{- with include "assay.imagePullSecrets" . }}
      {{- . | nindent 6 }}
      {{- end }}
      {{- with $c.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      terminationGracePeriodSeconds: {{ $c.terminationGracePeriodSeconds }}
      securityContext:
        {{- toYaml $c.podSecurityContext | nindent 8 }}
      containers:
        - name: {{ include "assay.componentName" . }}
          image: {{ include "assay.image" . | quote }}
          imagePullPolicy: {{ $c.image.pullPolicy }}
          ports:
            {{- include "assay.containerPorts" . | nindent 12 }}
          envFrom:
            - configMapRef:
                name: {{ include "assay.componentFullname" . }}
            {{- with $c.envFrom }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          env:
            {{- include "assay.secretEnv" (merge (dict "secretName" (include "assay.secretName" $root)) .) | nindent 12 }}
            {{- with $c.env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- include "assay.probes" . | nindent 10 }}
          resources:
            {{- toYaml $c.resources | nindent 12 }}
          securityContext:
            {{- toYaml $c.securityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- with $c.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        {{- include "assay.tmpVolume" $c | nindent 8 }}
        {{- with $c.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      affinity:
        {{- include "assay.affinity" . | nindent 8 }}
      {{- with $c.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $c.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $c.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}
{{- end -}}

{{- define "assay.service" -}}
{{- $root := .root -}}
{{- $c := index $root.Values .key -}}
{{- if $c.enabled -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "assay.componentFullname" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "assay.labels" . | nindent 4 }}
  {{- with $c.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ $c.service.type }}
  selector:
    {{- include "assay.selectorLabels" . | nindent 4 }}
  ports:
    {{- if eq .key "gateway" }}
    - name: http
      port: {{ include "assay.port.public" . }}
      targetPort: http
      protocol: TCP
      appProtocol: http
    - name: metrics
      port: {{ include "assay.port.http" . }}
      targetPort: metrics
      protocol: TCP
      appProtocol: http
    {{- else }}
    - name: grpc
      port: {{ include "assay.port.rpc" . }}
      targetPort: grpc
      protocol: TCP
      appProtocol: kubernetes.io/h2c
    - name: http
      port: {{ include "assay.port.http" . }}
      targetPort: http
      protocol: TCP
      appProtocol: http
    {{- end }}
{{- if ne .key "gateway" }}
---
# Headless: its name resolves to every ready pod, for the callers' RPC clients to spread their calls over the
# replicas (assay.rpcUrl); internal HTTP (uploads, downloads) stays on the ClusterIP Service above.
apiVersion: v1
kind: Service
metadata:
  name: {{ include "assay.rpcServiceName" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "assay.labels" . | nindent 4 }}
spec:
  clusterIP: None
  selector:
    {{- include "assay.selectorLabels" . | nindent 4 }}
  ports:
    - name: grpc
      port: {{ include "assay.port.rpc" . }}
      targetPort: grpc
      protocol: TCP
      appProtocol: kubernetes.io/h2c
{{- end }}
{{- end }}
{{- end -}}

{{- define "assay.serviceAccount" -}}
{{- $root := .root -}}
{{- $c := index $root.Values .key -}}
{{- if and $c.enabled $c.serviceAccount.create -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "assay.serviceAccountName" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "assay.labels" . | nindent 4 }}
  {{- with $c.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: false
{{- end }}
{{- end -}}

{{- define "assay.configMap" -}}
{{- $root := .root -}}
{{- $c := index $root.Values .key -}}
{{- if $c.enabled -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "assay.componentFullname" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "assay.labels" . | nindent 4 }}
data:
  {{- range $k, $v := include "assay.configData" . | fromYaml }}
  {{ $k }}: {{ $v | toString | quote }}
  {{- end }}
{{- end }}
{{- end -}}

{{- define "assay.pdb" -}}
{{- $root := .root -}}
{{- $c := index $root.Values .key -}}
{{- if and $c.enabled $c.pdb.enabled -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "assay.componentFullname" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "assay.labels" . | nindent 4 }}
spec:
  {{- if $c.pdb.minAvailable }}
  minAvailable: {{ $c.pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $c.pdb.maxUnavailable }}
  {{- end }}
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector:
    matchLabels:
      {{- include "assay.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end -}}

{{- define "assay.hpa" -}}
{{- $root := .root -}}
{{- $c := index $root.Values .key -}}
{{- $a := $c.autoscaling -}}
{{- if and $c.enabled $a.enabled -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "assay.componentFullname" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "assay.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "assay.componentFullname" . }}
  minReplicas: {{ $a.minReplicas }}
  maxReplicas: {{ $a.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ $a.targetCPUUtilizationPercentage }}
    {{- with $a.targetMemoryUtilizationPercentage }}
    - type: Resource
      resource:
        name: memory
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
{{- end }}
{{- end -}}

{{/* A list of in-release component peers: (dict "root" $ "keys" (list "gateway" ...)). */}}
{{- define "assay.componentPeers" -}}
{{- $root := .root -}}
{{- range $i, $k := .keys }}
{{- if $i }}{{ "\n" }}{{ end -}}
- podSelector:
    matchLabels:
      {{- include "assay.selectorLabels" (dict "root" $root "key" $k) | nindent 6 }}
{{- end }}
{{- end -}}

{{- define "assay.metricsPeer" -}}
{{- $m := .Values.networkPolicy.metrics -}}
- namespaceSelector:
    {{- toYaml $m.namespaceSelector | nindent 4 }}
  {{- with $m.podSelector }}
  podSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}

{{- define "assay.networkPolicy" -}}
{{- $root := .root -}}
{{- $c := index $root.Values .key -}}
{{- $np := $root.Values.networkPolicy -}}
{{- if and $c.enabled $np.enabled -}}
{{- $rpc := include "assay.port.rpc" . -}}
{{- $http := include "assay.port.http" . -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "assay.componentFullname" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "assay.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "assay.selectorLabels" . | nindent 6 }}
  policyTypes:
    - Ingress
    - Egress
  ingress:
    {{- if eq .key "gateway" }}
    # Public API: from anywhere, or from networkPolicy.gatewayFrom.
    - ports:
        - port: {{ include "assay.port.public" . }}
          protocol: TCP
      {{- with $np.gatewayFrom }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
    {{- $peers := get (include "assay.rpcPeerKeys" . | fromYaml) "keys" }}
    {{- $adminFrom := ternary $np.adminFrom list (eq (include "assay.hasAdminCaller" .) "true") }}
    {{- if or $peers $adminFrom }}
    # RPC: only its callers (assay.callerGraph: the same list as its INTERNAL_CALLERS){{ if include "assay.hasAdminCaller" . }}; admin: the admin CLI, from the {{ include "assay.adminHost" . }} pods{{ if eq .key (include "assay.adminHost" .) }} (over loopback){{ end }} and networkPolicy.adminFrom{{ end }}.
    - ports:
        - port: {{ $rpc }}
          protocol: TCP
      from:
        {{- with include "assay.componentPeers" (dict "root" $root "keys" $peers) }}
        {{- . | nindent 8 }}
        {{- end }}
        {{- with $adminFrom }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    {{- end }}
    # HTTP ({{ ternary "/metrics" "/metrics and internal streaming endpoints" (eq .key "gateway") }}): the metrics scraper{{ if $c.networkPolicy.httpClients }} and {{ join ", " $c.networkPolicy.httpClients }}{{ end }}.
    - ports:
        - port: {{ $http }}
          protocol: TCP
      from:
        {{- include "assay.metricsPeer" $root | nindent 8 }}
        {{- with include "assay.componentPeers" (dict "root" $root "keys" $c.networkPolicy.httpClients) }}
        {{- . | nindent 8 }}
        {{- end }}
    {{- with $c.networkPolicy.extraIngress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  egress:
    {{- include "assay.egressRules" . | nindent 4 }}
    {{- with $c.networkPolicy.extraEgress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end }}
{{- end -}}

{{/*
Egress of a component: DNS; the components it calls (those whose callers, assay.callerGraph, name it, or
whose httpClients do); its stores (PostgreSQL for the services, Redis for the gateway and identity, Kafka for
its users, object storage for runs); for webhooks, the outside world.
*/}}
{{- define "assay.egressRules" -}}
{{- $root := .root -}}
{{- $me := .key -}}
{{- $eg := $root.Values.networkPolicy.egress -}}
- # DNS
  ports:
    - port: 53
      protocol: UDP
    - port: 53
      protocol: TCP
  {{- with $eg.dns }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- range $k := splitList " " (include "assay.componentKeys" $root) }}
{{- $other := index $root.Values $k }}
{{- $rpcTo := has $me (get (include "assay.rpcPeerKeys" (dict "root" $root "key" $k) | fromYaml) "keys") }}
{{- $httpTo := has $me $other.networkPolicy.httpClients }}
{{- if and $other.enabled (ne $k $me) (or $rpcTo $httpTo) }}
- # {{ include "assay.componentName" (dict "key" $k) }}{{ if and $rpcTo (eq $me (include "assay.adminHost" $)) (not (has $me (get (include "assay.callers" (dict "root" $root "key" $k) | fromYaml) "callers"))) }} (the admin CLI){{ end }}
  to:
    {{- include "assay.componentPeers" (dict "root" $root "keys" (list $k)) | nindent 4 }}
  ports:
    {{- if $rpcTo }}
    - port: {{ include "assay.port.rpc" $ }}
      protocol: TCP
    {{- end }}
    {{- if $httpTo }}
    - port: {{ include "assay.port.http" $ }}
      protocol: TCP
    {{- end }}
{{- end }}
{{- end }}
{{- $stores := list -}}
{{- if ne $me "gateway" }}{{ $stores = append $stores "postgresql" }}{{ end -}}
{{- if has $me (splitList " " (include "assay.redisClients" $root)) }}{{ $stores = append $stores "redis" }}{{ end -}}
{{- if has $me (splitList " " (include "assay.kafkaClients" .)) }}{{ $stores = append $stores "kafka" }}{{ end -}}
{{- if $root.Values.dev.enabled }}
{{- range $store := $stores }}
- # dev {{ $store }}
  to:
    {{- include "assay.componentPeers" (dict "root" $root "keys" (list $store)) | nindent 4 }}
  ports:
    - port: {{ index (dict "postgresql" 5432 "redis" 6379 "kafka" 9092) $store }}
      protocol: TCP
{{- end }}
{{- else }}
- # {{ join ", " $stores }}
  {{- with $eg.datastores.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  ports:
    {{- range $store := $stores }}
    {{- range $port := index $eg.datastores.ports $store }}
    - port: {{ $port }}
      protocol: TCP
    {{- end }}
    {{- end }}
{{- end }}
{{- if and (eq $me "runs") (eq $root.Values.artifacts.storage "s3") }}
{{- if $root.Values.dev.enabled }}
- # dev s3 (artifacts)
  to:
    {{- include "assay.componentPeers" (dict "root" $root "keys" (list "s3")) | nindent 4 }}
  ports:
    - port: 7070
      protocol: TCP
{{- else }}
- # object storage (artifacts)
  {{- with $eg.objectStorage.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  ports:
    {{- range $port := $eg.objectStorage.ports }}
    - port: {{ $port }}
      protocol: TCP
    {{- end }}
{{- end }}
{{- end }}
{{- if and (eq $me "webhooks") $eg.webhooks.enabled }}
- # webhook receivers: the only way out of the cluster
  to:
    {{- toYaml $eg.webhooks.to | nindent 4 }}
{{- end }}
{{- end -}}

{{/*
Migrations: `node dist/main.js migrate` as a pre-install/pre-upgrade hook. It runs before the
release's regular objects exist, so it uses the hook ServiceAccount and (with inline secrets) the hook
Secret of templates/shared/, and takes its settings as literal env instead of the ConfigMap.
Concurrent runs are safe (Postgres advisory lock).
*/}}
{{- define "assay.migrationsJob" -}}
{{- $root := .root -}}
{{- $c := index $root.Values .key -}}
{{- if include "assay.migrationsHook" . -}}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ include "assay.componentFullname" . }}-migrate
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "assay.labels" . | nindent 4 }}
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "0"
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
    ignore-check.kube-linter.io/no-liveness-probe: "runs to completion; serves nothing to probe"
    ignore-check.kube-linter.io/no-readiness-probe: "runs to completion; serves nothing to probe"
spec:
  backoffLimit: {{ $c.migrations.backoffLimit }}
  activeDeadlineSeconds: {{ $c.migrations.activeDeadlineSeconds }}
  ttlSecondsAfterFinished: 86400
  template:
    metadata:
      labels:
        {{- include "assay.migrationsSelectorLabels" . | nindent 8 }}
        assay-migrations-for: {{ include "assay.componentName" . }}
        {{- with $c.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      # OnFailure: a crash retries in the same pod (counted against backoffLimit).
      restartPolicy: OnFailure
      serviceAccountName: {{ include "assay.fullname" $root }}-migrations
      automountServiceAccountToken: false
      enableServiceLinks: false
      {{- with include "assay.imagePullSecrets" . }}
      {{- . | nindent 6 }}
      {{- end }}
      securityContext:
        {{- toYaml $c.podSecurityContext | nindent 8 }}
      containers:
        - name: migrate
          image: {{ include "assay.image" . | quote }}
          imagePullPolicy: {{ $c.image.pullPolicy }}
          # args, not command: the image ENTRYPOINT (tini) stays PID 1.
          args: ["node", "dist/main.js", "migrate"]
          env:
            {{- range $k, $v := include "assay.configData" . | fromYaml }}
            - name: {{ $k }}
              value: {{ $v | toString | quote }}
            {{- end }}
            {{- include "assay.secretEnv" (merge (dict "secretName" (include "assay.migrationsSecretName" $root)) .) | nindent 12 }}
            {{- with $c.env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          resources:
            {{- toYaml $c.migrations.resources | nindent 12 }}
          securityContext:
            {{- toYaml $c.securityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
      {{- with $c.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $c.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}
{{- end -}}
