import { HistoryView } from "~/components/history-view";

export default async function HistoryPage({
  searchParams,
}: {
  searchParams: Promise<{ name?: string | string[]; kind?: string | string[] }>;
}) {
  const { name, kind } = await searchParams;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? "";
  const k = one(kind);
  return <HistoryView name={one(name)} kind={k === "experiment" ? "experiment" : "run"} />;
}
