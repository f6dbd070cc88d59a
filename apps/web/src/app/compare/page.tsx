import { CompareView } from "~/components/compare-view";

export default async function ComparePage({
  searchParams,
}: {
  searchParams: Promise<{ ids?: string | string[]; baseline?: string | string[] }>;
}) {
  const { ids, baseline } = await searchParams;
  const list = (Array.isArray(ids) ? ids : [ids ?? ""]).flatMap((s) => s.split(",")).filter(Boolean);
  const chosen = Array.isArray(baseline) ? baseline[0] : baseline;
  return <CompareView ids={list} baseline={chosen || undefined} />;
}
