import { LoadingBlock } from "@/components/query-state";

export default function Loading() {
  return <LoadingBlock label="Loading the latest collection…" />;
}
