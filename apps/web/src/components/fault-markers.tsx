"use client";

import { ReferenceLine } from "recharts";
import { labelLanes, type Marker } from "~/lib/faults";

export { faultMarkers, type Marker } from "~/lib/faults";

const COLOR = "#c92a2a";
/** The plot width the labels are laid out for: a half-width chart's; a wider one only spaces them more. */
const PLOT_PX = 480;
const PX_PER_CHAR = 6.2;
const LANE_PX = 12;

/**
 * The fault lines of a time chart, as children of a Recharts chart whose x axis is the second of
 * the load: one dashed vertical line per marker with its label. Over the chart's `domain` (seconds)
 * labels that would cover each other go on lanes one under the other, and one that would run past
 * the right end sits left of its line. Each line's group has the class `fault-marker`.
 */
export function faultMarkerLines(markers: readonly Marker[] | undefined, domain?: readonly [number, number]) {
  const list = markers ?? [];
  const span = domain && domain[1] > domain[0] ? domain[1] - domain[0] : undefined;
  const lanes =
    span === undefined
      ? list.map((_, i) => ({ lane: i % 3, alignRight: false }))
      : labelLanes(
          list.map((m) => ({ x: ((m.t - domain![0]) / span) * PLOT_PX, width: m.label.length * PX_PER_CHAR + 8 })),
          PLOT_PX,
        );
  return list.map((m, i) => (
    <ReferenceLine
      key={`fault-${i}-${m.t}`}
      x={m.t}
      className="fault-marker"
      stroke={COLOR}
      strokeDasharray="4 3"
      strokeWidth={1.5}
      ifOverflow="discard"
      label={{
        value: m.label,
        position: lanes[i]!.alignRight ? "insideTopRight" : "insideTopLeft",
        offset: 4,
        dy: lanes[i]!.lane * LANE_PX,
        fill: COLOR,
        fontSize: 10,
      }}
    />
  ));
}
