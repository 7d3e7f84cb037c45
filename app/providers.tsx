"use client";
import { QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { LiveUpdates } from "@/components/live/live-updates";
import { getQueryClient } from "./query-client";

export function Providers({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={getQueryClient()}>
      <LiveUpdates>{children}</LiveUpdates>
    </QueryClientProvider>
  );
}
