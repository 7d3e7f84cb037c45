import Link from "next/link";
import { connection } from "next/server";
import { EmptyState } from "@/components/empty-state";

export default async function NotFound() {
  // Rendered per request, so its scripts carry the CSP nonce (a prerendered page's would be blocked).
  await connection();
  return (
    <EmptyState title="Not found">
      <p>There is no such environment, object or commit here. It may have been removed from the configuration, or the link is mistyped.</p>
      <p>
        <Link href="/" className="text-blue-700 hover:underline">
          Back to the environments
        </Link>
      </p>
    </EmptyState>
  );
}
