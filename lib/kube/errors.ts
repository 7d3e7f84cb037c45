// Cluster errors, categorised the way an on-call engineer needs them: could we
// reach the API at all, was it slow, did it refuse who we are or what we asked.
export type KubeErrorCategory = "unreachable" | "timeout" | "unauthorised" | "forbidden" | "not-found" | "server" | "protocol";

export class KubeError extends Error {
  constructor(
    readonly category: KubeErrorCategory,
    message: string,
    readonly status?: number,
    readonly resource?: string,
  ) {
    super(message);
    this.name = "KubeError";
  }
}

export function categoryForStatus(status: number): KubeErrorCategory {
  if (status === 401) return "unauthorised";
  if (status === 403) return "forbidden";
  if (status === 404) return "not-found";
  if (status === 504 || status === 408) return "timeout";
  if (status >= 500) return "server";
  return "protocol";
}

export function categoryForNetworkError(e: unknown): KubeErrorCategory {
  const code = (e as { code?: string }).code ?? "";
  if (code === "ETIMEDOUT" || code === "ESOCKETTIMEDOUT" || (e as Error).name === "TimeoutError") return "timeout";
  return "unreachable";
}
