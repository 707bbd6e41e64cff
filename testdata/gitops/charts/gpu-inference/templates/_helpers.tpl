{{- define "gpu-inference.name" -}}{{ .Chart.Name }}{{- end -}}
