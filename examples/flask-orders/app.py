"""Orders: CPU work per request (hashing the order, like serialising and validating a payload)
and one Postgres statement, the shape of a typical CRUD service."""

import hashlib
import os

import psycopg2
from flask import Flask, abort, jsonify, request

app = Flask(__name__)
# Hash rounds per order: the CPU work of one request.
WORK = int(os.environ.get("ORDER_HASH_ROUNDS", "2000"))
_conn = None


def db():
    """One connection per gunicorn worker process (sync workers: one request at a time)."""
    global _conn
    if _conn is None or _conn.closed:
        _conn = psycopg2.connect(os.environ["DATABASE_URL"])
        _conn.autocommit = True
    return _conn


def digest(text: str) -> str:
    h = text.encode()
    for _ in range(WORK):
        h = hashlib.sha256(h).digest()
    return h.hex()


@app.get("/health")
def health():
    with db().cursor() as cur:
        cur.execute("SELECT 1")
    return {"ok": True}


@app.post("/orders")
def create_order():
    body = request.get_json(silent=True) or {}
    item = str(body.get("item", "book"))[:100]
    qty = int(body.get("qty", 1))
    with db().cursor() as cur:
        cur.execute(
            "INSERT INTO orders (item, qty, digest) VALUES (%s, %s, %s) RETURNING id",
            (item, qty, digest(f"{item}:{qty}")),
        )
        (order_id,) = cur.fetchone()
    return jsonify(id=order_id, item=item, qty=qty), 201


@app.get("/orders/<int:order_id>")
def read_order(order_id: int):
    with db().cursor() as cur:
        cur.execute("SELECT id, item, qty, digest FROM orders WHERE id = %s", (order_id,))
        row = cur.fetchone()
    if row is None:
        abort(404)
    return jsonify(id=row[0], item=row[1], qty=row[2], digest=row[3][:16])
