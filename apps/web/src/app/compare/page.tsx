import { CompareView } from "~/components/compare-view";

export default async function ComparePage({ searchParams }: { searchParams: Promise<{ ids?: string | string[] }> }) {
  const { ids } = await searchParams;
  const list = (Array.isArray(ids) ? ids : [ids ?? ""]).flatMap((s) => s.split(",")).filter(Boolean);
  return <CompareView ids={list} />;
}
