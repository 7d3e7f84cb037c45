// The in-repo Kubernetes API imitation: what the rest of the app may use.
export { startKubeSim, type KubeSim, type KubeSimOptions } from "./server";
export type { TokenScope } from "./auth";
export { setKubeSimClock } from "./json";
export { GITOPS_CRDS, FLUX_GITREPOSITORY_CRD, FLUX_KUSTOMIZATION_CRD, FLUX_HELMREPOSITORY_CRD, FLUX_HELMRELEASE_CRD, ARGOCD_APPLICATION_CRD } from "./fixtures/gitops-crds";
export { tlsMaterial } from "./certs";
