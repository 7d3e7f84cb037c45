"use client";
import { useState } from "react";
import { useQueryClient } from "@tanstack/react-query";

/**
 * One mutation from a form or button: `busy` while it runs, the server's
 * message in `error` when it fails, and every query refreshed when it
 * succeeds (a pause or a claim changes several pages). `run` resolves to
 * whether it succeeded, so the caller can close its form.
 */
export function useAction() {
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run(action: () => Promise<unknown>): Promise<boolean> {
    setError(null);
    setBusy(true);
    try {
      await action();
      await qc.invalidateQueries();
      return true;
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      return false;
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, run };
}
