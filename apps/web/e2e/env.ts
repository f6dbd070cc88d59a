import { z } from "zod";

/** What the e2e specs read of the environment (scripts/test.sh sets it), parsed once. */
const ZE2eEnv = z.object({
  /** The e2e web's database, for specs that insert recorded runs rather than run them. */
  DATABASE_URL: z.string().startsWith("postgres", { error: "DATABASE_URL must name the e2e web's database (scripts/test.sh exports it)" }),
});

export const e2eEnv = () => ZE2eEnv.parse({ DATABASE_URL: process.env.DATABASE_URL });
