// The real kubectl's write commands, as an on-call engineer types them.
import type { Scenario } from "../harness";
import { createNamespace, deploymentYaml, writeFile } from "./support";

const getJson = ["-o", "json", "--show-managed-fields"];

export const kubectlScenarios: Scenario[] = [
  {
    name: "kubectl apply (client-side)",
    async run(t, rec) {
      await createNamespace(t, "csa");
      const file = writeFile(t, "csa.yaml", deploymentYaml("csa", "web", 2));
      rec.kubectl("apply creates", await t.kubectl(["apply", "-f", file]));
      rec.kubectl("object after create", await t.kubectl(["-n", "csa", "get", "deployment", "web", ...getJson]), "json");
      writeFile(t, "csa.yaml", deploymentYaml("csa", "web", 2, "nginx:1.26"));
      rec.kubectl("apply configures", await t.kubectl(["apply", "-f", file]));
      rec.kubectl("apply unchanged", await t.kubectl(["apply", "-f", file]));
      rec.kubectl("object after configure", await t.kubectl(["-n", "csa", "get", "deployment", "web", ...getJson]), "json");
      rec.kubectl("get table", await t.kubectl(["-n", "csa", "get", "deployment", "web"]));
      rec.kubectl("apply refuses an unknown field", await t.kubectl(["apply", "-f", "-"], { input: deploymentYaml("csa", "web", 2).replace("replicas: 2", "replicas: 2\n  replicaz: 3") }));
      rec.kubectl("apply a ConfigMap and a Service", await t.kubectl(["-n", "csa", "apply", "-f", "-"], {
        input: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: live}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n",
      }));
      rec.kubectl("service after apply", await t.kubectl(["-n", "csa", "get", "service", "web", ...getJson]), "json");
    },
  },
  {
    name: "kubectl apply --server-side",
    async run(t, rec) {
      await createNamespace(t, "ssa");
      rec.kubectl("apply a ConfigMap", await t.kubectl(["-n", "ssa", "apply", "--server-side", "-f", "-"], { input: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: fast}\n" }));
      rec.kubectl("ConfigMap", await t.kubectl(["-n", "ssa", "get", "configmap", "settings", ...getJson]), "json");
      const file = writeFile(t, "ssa.yaml", deploymentYaml("ssa", "web", 1));
      rec.kubectl("apply a Deployment", await t.kubectl(["apply", "--server-side", "-f", file]));
      rec.kubectl("Deployment", await t.kubectl(["-n", "ssa", "get", "deployment", "web", ...getJson]), "json");
      rec.kubectl("scale it", await t.kubectl(["-n", "ssa", "scale", "deployment", "web", "--replicas=3"]));
      rec.kubectl("apply again conflicts", await t.kubectl(["apply", "--server-side", "-f", file]));
      rec.kubectl("apply with --force-conflicts", await t.kubectl(["apply", "--server-side", "--force-conflicts", "-f", file]));
      rec.kubectl("Deployment after force", await t.kubectl(["-n", "ssa", "get", "deployment", "web", ...getJson]), "json");
      writeFile(t, "ssa.yaml", deploymentYaml("ssa", "web", 1).replace("        ports: [{containerPort: 80}]\n", ""));
      rec.kubectl("apply without the ports", await t.kubectl(["apply", "--server-side", "-f", file]));
      rec.kubectl("ports pruned", await t.kubectl(["-n", "ssa", "get", "deployment", "web", ...getJson]), "json");
      rec.kubectl("dry run", await t.kubectl(["apply", "--server-side", "--dry-run=server", "-f", "-"], { input: deploymentYaml("ssa", "dry", 1) }));
      rec.kubectl("dry run left nothing", await t.kubectl(["-n", "ssa", "get", "deployment", "dry"]));
    },
  },
  {
    name: "kubectl imperative edits",
    async run(t, rec) {
      await createNamespace(t, "edits");
      rec.kubectl("apply", await t.kubectl(["apply", "-f", "-"], { input: deploymentYaml("edits", "web", 2) }));
      const k = (...args: string[]) => t.kubectl(["-n", "edits", ...args]);
      rec.kubectl("scale", await k("scale", "deployment", "web", "--replicas=3"));
      rec.kubectl("after scale", await k("get", "deployment", "web", ...getJson), "json");
      const editor = writeFile(t, "editor.sh", "#!/bin/sh\nsed -i 's/replicas: 3/replicas: 4/' \"$1\"\n");
      rec.kubectl("edit", await t.kubectl(["-n", "edits", "edit", "deployment", "web"], { env: { KUBE_EDITOR: editor, EDITOR: editor } }));
      rec.kubectl("after edit", await k("get", "deployment", "web", ...getJson), "json");
      rec.kubectl("set env", await k("set", "env", "deployment/web", "MODE=debug", "LEVEL=2"));
      rec.kubectl("label", await k("label", "deployment", "web", "tier=frontend"));
      rec.kubectl("annotate", await k("annotate", "deployment", "web", "owner=team-a"));
      rec.kubectl("patch json", await k("patch", "deployment", "web", "--type=json", "-p", '[{"op":"replace","path":"/spec/revisionHistoryLimit","value":5}]'));
      rec.kubectl("patch merge", await k("patch", "deployment", "web", "--type=merge", "-p", '{"spec":{"minReadySeconds":3}}'));
      rec.kubectl("patch strategic", await k("patch", "deployment", "web", "--type=strategic", "-p", '{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"EXTRA","value":"x"}]}]}}}}'));
      rec.kubectl("patch that fails its test", await k("patch", "deployment", "web", "--type=json", "-p", '[{"op":"test","path":"/spec/replicas","value":9}]'));
      rec.kubectl("patch with no change", await k("patch", "deployment", "web", "--type=merge", "-p", '{"spec":{"minReadySeconds":3}}'));
      rec.kubectl("after patches", await k("get", "deployment", "web", ...getJson), "json");
      rec.kubectl("rollout restart", await k("rollout", "restart", "deployment", "web"));
      rec.kubectl("after restart", await k("get", "deployment", "web", ...getJson), "json");
      rec.kubectl("rollout history", await k("rollout", "history", "deployment", "web"));
      rec.kubectl("delete", await k("delete", "deployment", "web"));
      rec.kubectl("get after delete", await k("get", "deployment", "web"));
      rec.kubectl("delete again", await k("delete", "deployment", "web"));
    },
  },
];
