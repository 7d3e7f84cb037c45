// The in-repo Kubernetes API imitation: what the rest of the app may use.
export { startKubeSim, type KubeSim, type KubeSimOptions } from "./server";
export type { TokenScope } from "./auth";
