import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { SESSION_COOKIE } from "@/lib/auth/session";
import { serveChanges } from "@/lib/live/serve-changes";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(operations.watchChanges, ({ req }) => serveChanges(req.signal, req.cookies.get(SESSION_COOKIE)?.value));
