// What the rest of the app uses of lib/applications: the application contract,
// discovery from controller objects, its configuration, and repository resolution.
export * from "./spec";
export { discoverApplications, type DiscoveryOutcome, type DiscoveryTarget, type DiscoveryWarning, type DiscoveryWarningCode, type UnlistedKind, type UnmatchedApplication } from "./discover";
export { discoverSchema, type DiscoverConfig, type FluxDiscoveryConfig, type ArgocdDiscoveryConfig, type ArgoDestination } from "./discovery-config";
export { resolveRepository, repositoryOfSource, normaliseRepositoryUrl, withoutCredentials, type ResolvedRepository, type RepositoryCatalog, type SourceRepository } from "./repositories";
export { fluxKustomizationSpec, fluxHelmReleaseSpec, type SourceLookup, type TransformResult, type TransformProblem } from "./flux-application";
export { argoApplicationSpec } from "./argocd-application";
export { APPLICATION_ANNOTATION } from "./refs";
export { parseLabelSelector, matchesLabels, LabelSelectorError, type LabelSelector } from "./label-selector";
