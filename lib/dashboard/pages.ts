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
