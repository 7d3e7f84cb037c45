//go:build tools

// Keeps helm.sh/helm/v4/cmd/helm in the module graph so that `go mod tidy`
// records every package it needs in go.sum.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
