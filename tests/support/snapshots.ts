/** One element line of an AI snapshot: `- button "Submit" [ref=@e12]`. */
export interface SnapshotLine {
  role: string;
  name: string | undefined;
  ref: string;
  line: string;
}

const LINE = /^\s*- ([a-z]+)(?: "((?:[^"\\]|\\.)*)")?[^\n]*?\[ref=([^\]\s]+)\]/;

export function snapshotLines(snapshot: string): SnapshotLine[] {
  const lines: SnapshotLine[] = [];
  for (const line of snapshot.split('\n')) {
    const match = LINE.exec(line);
    if (match) lines.push({ role: match[1]!, name: match[2]?.replace(/\\(.)/g, '$1'), ref: match[3]!, line });
  }
  return lines;
}

/** The ref of the only element with this role and name (a string matches the whole name). */
export function refOf(snapshot: string, role: string, name?: string | RegExp): string {
  const matches = snapshotLines(snapshot).filter(
    (l) =>
      l.role === role &&
      (name === undefined || (typeof name === 'string' ? l.name === name : name.test(l.name ?? ''))),
  );
  if (matches.length !== 1) {
    throw new Error(
      `expected one ${role} ${String(name ?? '')} in the snapshot, found ${matches.length}:\n${snapshot}`,
    );
  }
  return matches[0]!.ref;
}
