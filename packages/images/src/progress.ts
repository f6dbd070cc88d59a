export type BuildStep = { step: number; totalSteps: number; instruction: string };

/** Parses the classic builder's "Step 3/7 : RUN ..." line. */
export function parseBuildStep(line: string): BuildStep | undefined {
  const match = /^Step (\d+)\/(\d+) : (.*)$/.exec(line.trim());
  if (!match) return undefined;
  return { step: Number(match[1]), totalSteps: Number(match[2]), instruction: match[3] ?? "" };
}
