// The settings of a systemd unit file: `Key=value` lines (the last one of a key wins, as systemd reads them), no
// comments or section headers. Enough for our own deploy/kernel-runner.service, which continues no line.
export function unitSettings(text: string): Map<string, string> {
  const settings = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) settings.set(m[1]!, m[2]!.trim());
  }
  return settings;
}
