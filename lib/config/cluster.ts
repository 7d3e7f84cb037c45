// How Driftwatch reaches a cluster: a kubeconfig (and context), the pod's own
// service account, or a server URL with a token from an environment variable.
// Its own module because both driftwatch.yaml's environments and the Argo CD
// hub of `discover.argocd` name clusters this way.
import { z } from "zod";

export const envVarName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name");

export const clusterSchema = z.union([
  z.object({ kubeconfig: z.string().min(1), context: z.string().optional() }).strict(),
  z.object({ inCluster: z.literal(true) }).strict(),
  z
    .object({
      server: z.string().url(),
      tokenEnv: envVarName,
      caFile: z.string().optional(),
      insecureSkipTlsVerify: z.boolean().default(false),
    })
    .strict(),
]);

export type ClusterConfig = z.infer<typeof clusterSchema>;
