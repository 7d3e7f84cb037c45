import { EmptyState } from "./empty-state";

/** What a new user sees before any environment is configured. */
export function ConfigureHint({ configPath, configExists }: { configPath: string; configExists: boolean }) {
  return (
    <EmptyState title="No environments yet">
      <p>
        Driftwatch compares each environment&apos;s cluster with what Git describes. Tell it where your environments are in{" "}
        <code className="rounded bg-slate-100 px-1">{configPath}</code>
        {configExists ? " (the file exists but declares no environments)." : " (the file does not exist yet)."}
      </p>
      <ol className="list-decimal space-y-1 pl-5">
        <li>
          Copy <code className="rounded bg-slate-100 px-1">driftwatch.example.yaml</code> to{" "}
          <code className="rounded bg-slate-100 px-1">driftwatch.yaml</code>.
        </li>
        <li>Declare your Git repository and, for each environment, its cluster (kubeconfig context), namespaces and path in Git.</li>
        <li>Restart Driftwatch; the first collection runs at once and this page fills in.</li>
      </ol>
      <p>
        Just looking? <code className="rounded bg-slate-100 px-1">npm run demo</code> starts three simulated environments with a
        scripted incident.
      </p>
    </EmptyState>
  );
}
