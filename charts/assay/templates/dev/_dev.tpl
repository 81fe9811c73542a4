{{/*
Development-only infrastructure (dev.enabled): one PostgreSQL, Redis and Kafka pod each, from the
official images, on emptyDir storage. Each instance is a Deployment + Service + ServiceAccount +
NetworkPolicy rendered from (dict "root" $ "key" "postgresql"|"redis"|"kafka" "port" <port>
"clients" <component keys allowed to connect> ...).
The pods run as the image's own non-root user with a read-only root filesystem; only the emptyDir
mounts are writable.
*/}}

{{/* Objects common to the three instances; the caller passes the container spec pieces. */}}
{{- define "assay.dev.instance" -}}
{{- $root := .root -}}
{{- $v := index $root.Values.dev .key -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "assay.componentFullname" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "assay.labels" . | nindent 4 }}
automountServiceAccountToken: false
---
apiVersion: v1
kind: Service
metadata:
  name: {{ include "assay.componentFullname" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "assay.labels" . | nindent 4 }}
spec:
  type: ClusterIP
  selector:
    {{- include "assay.selectorLabels" . | nindent 4 }}
  ports:
    - name: {{ .portName }}
      port: {{ .port }}
      targetPort: {{ .portName }}
      protocol: TCP
{{- if $root.Values.networkPolicy.enabled }}
---
# Only the components that use this instance may connect; it connects nowhere.
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
    - ports:
        - port: {{ .port }}
          protocol: TCP
      from:
        {{- include "assay.componentPeers" (dict "root" $root "keys" .clients) | nindent 8 }}
  egress: []
{{- end }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "assay.componentFullname" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "assay.labels" . | nindent 4 }}
spec:
  replicas: 1
  revisionHistoryLimit: 2
  # One pod on ephemeral storage: stop the old one before the new one starts.
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 0
      maxUnavailable: 1
  selector:
    matchLabels:
      {{- include "assay.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "assay.labels" . | nindent 8 }}
      {{- with .podAnnotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    spec:
      restartPolicy: Always
      serviceAccountName: {{ include "assay.componentFullname" . }}
      automountServiceAccountToken: false
      enableServiceLinks: false
      securityContext:
        runAsNonRoot: true
        runAsUser: {{ .uid }}
        runAsGroup: {{ .uid }}
        fsGroup: {{ .uid }}
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: {{ .key }}
          image: {{ printf "%s:%s" $v.image.repository (toString $v.image.tag) | quote }}
          imagePullPolicy: {{ $v.image.pullPolicy }}
          {{- with .command }}
          command:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- with .args }}
          args:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- with .env }}
          env:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          ports:
            - name: {{ .portName }}
              containerPort: {{ .port }}
              protocol: TCP
          readinessProbe:
            {{- toYaml .probe | nindent 12 }}
            periodSeconds: 5
            failureThreshold: 3
          livenessProbe:
            {{- toYaml .probe | nindent 12 }}
            initialDelaySeconds: 30
            periodSeconds: 10
            failureThreshold: 6
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            allowPrivilegeEscalation: false
            privileged: false
            readOnlyRootFilesystem: true
            capabilities:
              drop:
                - ALL
          volumeMounts:
            {{- range $name, $path := .volumes }}
            - name: {{ $name }}
              mountPath: {{ $path }}
            {{- end }}
            {{- with .configMount }}
            - name: config
              mountPath: {{ . }}
              readOnly: true
            {{- end }}
      volumes:
        {{- range $name, $path := .volumes }}
        - name: {{ $name }}
          emptyDir: {}
        {{- end }}
        {{- if .configMount }}
        - name: config
          configMap:
            name: {{ include "assay.componentFullname" . }}
        {{- end }}
{{- end -}}
