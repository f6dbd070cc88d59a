/** The labels every Docker object of a run carries. */
export const LABELS = {
  managed: "scalelab.managed",
  run: "scalelab.run",
  role: "scalelab.role",
  /** Which control plane (database) the run belongs to, so a sweep leaves other planes' runs alone. */
  instance: "scalelab.instance",
} as const;
