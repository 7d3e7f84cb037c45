import type { IncomingMessage, ServerResponse } from "node:http";

export function refuseUnservedMethod(req: IncomingMessage, res: ServerResponse): boolean;
