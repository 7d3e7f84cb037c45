//go:build tools

// Keeps k8s.io/kubernetes/cmd/kube-apiserver in the module graph so that
// `go mod tidy` records every package it needs in go.sum.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
