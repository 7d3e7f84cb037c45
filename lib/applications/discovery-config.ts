// The `discover:` key of an environment in driftwatch.yaml: which controller
// objects in its cluster are its applications. Flux objects are selected by
// namespace; Argo CD Applications live in Argo CD's namespace(s) and, on a hub
// that deploys to many clusters, belong to the environment whose destination
// they name.
import { z } from "zod";
import { clusterSchema } from "@/lib/config/cluster";
import { LabelSelectorError, parseLabelSelector } from "./label-selector";

const labelSelector = z.string().superRefine((s, ctx) => {
  try {
    parseLabelSelector(s);
  } catch (e) {
    if (!(e instanceof LabelSelectorError)) throw e;
    ctx.addIssue({ code: "custom", message: e.message });
  }
});

/**
 * Globs (`*`, `?`) over the controller object's name, or over `namespace/name`
 * when the pattern holds a `/`. An object is taken when it matches an include
 * (or there are none) and no exclude.
 */
const nameGlobs = z.array(z.string().min(1)).default([]);

export const fluxDiscoverySchema = z
  .object({
    /** Namespaces to look in; empty: every namespace. */
    namespaces: z.array(z.string().min(1)).default([]),
    include: nameGlobs,
    exclude: nameGlobs,
    labelSelector: labelSelector.optional(),
  })
  .strict();

export const argoDestinationSchema = z
  .object({
    /** The cluster's name as Argo CD knows it (an Application's `spec.destination.name`). */
    name: z.string().min(1).optional(),
    /** The cluster's API server URL (an Application's `spec.destination.server`). */
    server: z.string().min(1).optional(),
  })
  .strict()
  .refine((d) => Boolean(d.name || d.server), { message: "a destination needs name or server" });

export const argocdDiscoverySchema = z
  .object({
    /** Where Argo CD's Applications live; `namespace` is shorthand for one. Default: argocd. */
    namespace: z.string().min(1).optional(),
    namespaces: z.array(z.string().min(1)).optional(),
    /**
     * On a hub: the Applications that deploy to this environment's cluster.
     * Unset: every Application in the namespaces (Argo CD runs in the environment's own cluster).
     */
    destination: argoDestinationSchema.optional(),
    /**
     * The hub cluster Argo CD runs in, when it is not the environment's own:
     * its Applications (and their status) are read there, the objects they
     * deploy in the environment's cluster. Read-only credentials suffice;
     * a pause of such an Application is recorded, not performed.
     */
    hub: clusterSchema.optional(),
    include: nameGlobs,
    exclude: nameGlobs,
    labelSelector: labelSelector.optional(),
  })
  .strict()
  .refine((a) => !(a.namespace && a.namespaces), { message: "give namespace or namespaces, not both", path: ["namespaces"] })
  .refine((a) => !a.hub || a.destination, { message: "a hub's Applications deploy to many clusters: name this environment's with destination", path: ["destination"] })
  .transform(({ namespace, namespaces, ...rest }) => ({ ...rest, namespaces: namespaces ?? [namespace ?? "argocd"] }));

export const discoverSchema = z
  .object({
    flux: fluxDiscoverySchema.optional(),
    argocd: argocdDiscoverySchema.optional(),
    /**
     * Promotion keys by controller object (`name` or `namespace/name`): the
     * application they name is matched across environments by this key instead
     * of the object's name or its `driftwatch.io/application` annotation.
     */
    promotionKeys: z.record(z.string().min(1), z.string().min(1)).default({}),
  })
  .strict()
  .refine((d) => Boolean(d.flux || d.argocd), { message: "discover needs flux, argocd or both" });

export type FluxDiscoveryConfig = z.infer<typeof fluxDiscoverySchema>;
export type ArgocdDiscoveryConfig = z.infer<typeof argocdDiscoverySchema>;
export type ArgoDestination = z.infer<typeof argoDestinationSchema>;
export type DiscoverConfig = z.infer<typeof discoverSchema>;
