import Link from "next/link";
import { EmptyState } from "@/components/empty-state";

export default function NotFound() {
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
