//go:build tools

// Keeps github.com/fluxcd/kustomize-controller (a main package) in the module graph so that
// `go mod tidy` records every package it needs in go.sum.
package tools

import _ "github.com/fluxcd/kustomize-controller"
