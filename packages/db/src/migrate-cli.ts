import { migrate } from "./migrate";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("migrate: DATABASE_URL is not set");
  process.exit(1);
}
const r = await migrate(url);
console.log(`migrations: ${r.applied.length} applied (${r.applied.join(", ") || "none"}), ${r.alreadyApplied.length} already in place`);
