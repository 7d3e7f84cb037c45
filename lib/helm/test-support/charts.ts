// Templates the Helm render tests share: a Deployment showing the release,
// the values, the cluster version and that `lookup` finds nothing; a PodDisruptionBudget only where the
// cluster serves policy/v1 (so --api-versions is seen to reach helm) and a
// test hook (which Argo CD leaves out of the compared objects).
export const CAPABILITY_TEMPLATES: Record<string, string> = {
  "pdb.yaml": `{{- if .Capabilities.APIVersions.Has "policy/v1/PodDisruptionBudget" }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: {{ .Release.Name }}}
spec: {minAvailable: 1, selector: {matchLabels: {app: {{ .Release.Name }}}}}
{{- end }}
`,
  "tests/ping.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-ping\n  annotations: {\"helm.sh/hook\": test}\nspec: {containers: [{name: ping, image: busybox}]}\n",
};

export const SHOP_DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
  annotations:
    kube-version: {{ .Capabilities.KubeVersion.Version | quote }}
    {{- with (lookup "v1" "Secret" "kube-system" "") }}
    looked-up: {{ len .items | quote }}
    {{- end }}
  labels: {{- toYaml .Values.labels | nindent 4 }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector: {matchLabels: {app: {{ .Release.Name }}}}
  template:
    metadata: {labels: {app: {{ .Release.Name }}}}
    spec:
      containers:
      - name: shop
        image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
`;
