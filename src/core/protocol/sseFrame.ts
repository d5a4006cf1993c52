// One server-sent event as it goes on the wire: `id:` (our runner's extension clients; upstream sends none), `event:`,
// one `data:` line, and the blank line that ends it. `data` must be one line (JSON.stringify's output is).

export function sseFrame(event: string, data: string, id?: number): string {
  return id === undefined ? `event: ${event}\ndata: ${data}\n\n` : `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
}
