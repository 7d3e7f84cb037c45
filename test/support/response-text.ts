// A response's body as text for tests that call route handlers directly. A
// stream (GET /api/live, text/event-stream) never ends by itself: its first
// message stands for its body, then it is cancelled.
export async function responseText(res: Response): Promise<string> {
  if (!(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) return res.text();
  const reader = res.body!.getReader();
  const { value } = await reader.read();
  await reader.cancel();
  return new TextDecoder().decode(value);
}
