CREATE TABLE IF NOT EXISTS orders (
  id bigserial PRIMARY KEY,
  item text NOT NULL,
  qty integer NOT NULL,
  digest text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
