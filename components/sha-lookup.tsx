"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";

/** Jump to a commit by full or short sha. */
export function ShaLookup({ initial = "" }: { initial?: string }) {
  const router = useRouter();
  const [sha, setSha] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <form
      role="search"
      aria-label="Find a commit"
      className="flex flex-wrap items-end gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        const s = sha.trim();
        if (!/^[0-9a-fA-F]{4,64}$/.test(s)) {
          setProblem("Enter at least 4 hexadecimal digits of a commit sha.");
          return;
        }
        setProblem(null);
        router.push(`/commits/${s.toLowerCase()}`);
      }}
    >
      <label className="flex flex-col text-xs text-slate-600">
        Is this commit live? Full or short sha
        <input
          value={sha}
          onChange={(e) => setSha(e.target.value)}
          placeholder="e.g. 1b2b618"
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? "sha-problem" : undefined}
          className="w-64 rounded border border-slate-300 bg-white px-2 py-1 font-mono text-sm"
        />
      </label>
      <button type="submit" className="rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700">
        Find
      </button>
      {problem && (
        <p id="sha-problem" role="alert" className="w-full text-sm text-red-800">
          {problem}
        </p>
      )}
    </form>
  );
}
