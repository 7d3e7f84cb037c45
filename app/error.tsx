"use client";
import { ErrorBlock } from "@/components/query-state";

export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <ErrorBlock error={error} onRetry={reset}>
      <p className="mt-2">
        If this keeps happening, the database may be unreachable: check the Driftwatch server log
        {error.digest ? ` for error ${error.digest}` : ""}.
      </p>
    </ErrorBlock>
  );
}
