"use client";
import { useQuery } from "@tanstack/react-query";
import { fetchJson, queryKeys, type SessionInfo } from "@/lib/dashboard/client";

/** Who is signed in and the CSRF token for mutations; null data while unknown. */
export function useSession() {
  return useQuery({ queryKey: queryKeys.session, queryFn: () => fetchJson<SessionInfo>("/api/auth/session"), staleTime: 60_000 });
}

export function canOperate(session: SessionInfo | null | undefined): boolean {
  return session?.user?.role === "operator" || session?.user?.role === "admin";
}
