// For server pages: an unknown environment, object or commit is the page's
// 404, not an error page.
import { notFound } from "next/navigation";
import { ApiError } from "@/lib/api/errors";

export async function orNotFound<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof ApiError && (e.code === "not_found" || e.code === "bad_request")) notFound();
    throw e;
  }
}

/** The query string Next.js hands a server page. */
export type PageSearchParams = Record<string, string | string[] | undefined>;

/** The named parameters a page passes on to its query: single, non-empty values only. */
export function pickSearchParams(sp: PageSearchParams, keys: readonly string[]): URLSearchParams {
  const params = new URLSearchParams();
  for (const k of keys) {
    const v = sp[k];
    if (typeof v === "string" && v) params.set(k, v);
  }
  return params;
}
