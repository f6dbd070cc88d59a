// Writes an order and reads it back, with checks; the lab gives the target in SCALELAB_TARGET
// and the VUs and duration of the run (this script declares no scenarios of its own).
import http from "k6/http";
import { check } from "k6";
import { Counter } from "k6/metrics";

const created = new Counter("orders_created");
const base = __ENV.SCALELAB_TARGET;

export default function () {
  const res = http.post(`${base}/orders`, JSON.stringify({ item: "book", qty: 1 }), { headers: { "Content-Type": "application/json" } });
  if (!check(res, { "order created (201)": (r) => r.status === 201 })) return;
  created.add(1);
  const id = res.json("id");
  const read = http.get(`${base}/orders/${id}`);
  check(read, { "order read back": (r) => r.status === 200 && r.json("id") === id });
}
