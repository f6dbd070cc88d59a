import { describe, expect, it } from "vitest";
import { describeStatement, splitStatements } from "./statements";

const texts = (script: string, dialect: "sql" | "cql" = "sql") => splitStatements(script, dialect).map((s) => s.text);

describe("splitStatements", () => {
  it("splits at each ; and gives each statement the line it starts on, leaving out empty ones", () => {
    const script = "CREATE TABLE a (id int);\n\n  INSERT INTO a VALUES (1);;\n\nSELECT 1";
    expect(splitStatements(script, "sql")).toEqual([
      { text: "CREATE TABLE a (id int)", line: 1 },
      { text: "INSERT INTO a VALUES (1)", line: 3 },
      { text: "SELECT 1", line: 5 },
    ]);
  });

  it("keeps a ; inside a string with '' escapes, and a quoted name with \"\"", () => {
    expect(texts("INSERT INTO t VALUES ('a;b', 'it''s; fine');\nSELECT \"odd;\"\"name\" FROM t;")).toEqual([
      "INSERT INTO t VALUES ('a;b', 'it''s; fine')",
      'SELECT "odd;""name" FROM t',
    ]);
  });

  it("reads SQL's E'…' strings with backslash escapes, but not a name ending in e", () => {
    expect(texts("SELECT E'a\\';b';\nSELECT some'x;y' ;")).toEqual(["SELECT E'a\\';b'", "SELECT some'x;y'"]);
  });

  it("keeps a Postgres function body in dollar quotes whole, with or without a tag, and leaves $1 alone", () => {
    const script = [
      "CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1; END; $$ LANGUAGE plpgsql;",
      "DO $body$ BEGIN PERFORM 1; RAISE NOTICE '$$'; END $body$;",
      "PREPARE p AS SELECT $1::int; EXECUTE p(2);",
    ].join("\n");
    expect(texts(script)).toEqual([
      "CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1; END; $$ LANGUAGE plpgsql",
      "DO $body$ BEGIN PERFORM 1; RAISE NOTICE '$$'; END $body$",
      "PREPARE p AS SELECT $1::int",
      "EXECUTE p(2)",
    ]);
  });

  it("skips -- and /* */ comments (nested in SQL), counting their lines, and keeps those inside a statement", () => {
    const script = "-- schema; v1\n/* a /* nested; */ still; */\nCREATE TABLE a (\n  id int -- the key; really\n);\n-- trailing; comment";
    expect(splitStatements(script, "sql")).toEqual([{ text: "CREATE TABLE a (\n  id int -- the key; really\n)", line: 3 }]);
  });

  it("keeps an SQL-standard function body (BEGIN ATOMIC … END) whole, CASE … END inside it too", () => {
    const script =
      "CREATE FUNCTION g(x int) RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT CASE WHEN x > 0 THEN 1 ELSE 0 END; SELECT 2; END;\nSELECT 3;";
    expect(texts(script)).toEqual([
      "CREATE FUNCTION g(x int) RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT CASE WHEN x > 0 THEN 1 ELSE 0 END; SELECT 2; END",
      "SELECT 3",
    ]);
  });

  it("reads CQL: // comments, $$ strings, non-nested /* */, and a batch as one statement", () => {
    const script = [
      "// keyspace; first",
      "CREATE TABLE orders (id int PRIMARY KEY, note text); // trailing; comment",
      "INSERT INTO orders (id, note) VALUES (1, $$a; 'b'$$);",
      "/* one /* level; */",
      "BEGIN UNLOGGED BATCH",
      "  INSERT INTO orders (id, note) VALUES (2, 'x;y');",
      "  INSERT INTO orders (id, note) VALUES (3, 'z');",
      "APPLY BATCH;",
    ].join("\n");
    expect(splitStatements(script, "cql")).toEqual([
      { text: "CREATE TABLE orders (id int PRIMARY KEY, note text)", line: 2 },
      { text: "INSERT INTO orders (id, note) VALUES (1, $$a; 'b'$$)", line: 3 },
      {
        text: "BEGIN UNLOGGED BATCH\n  INSERT INTO orders (id, note) VALUES (2, 'x;y');\n  INSERT INTO orders (id, note) VALUES (3, 'z');\nAPPLY BATCH",
        line: 5,
      },
    ]);
  });

  it("in CQL a $tag$ is not a string and // is a comment; in SQL // is not a comment", () => {
    expect(texts("SELECT $a$;b$a$ FROM t;", "cql")).toEqual(["SELECT $a$", "b$a$ FROM t"]);
    expect(texts("SELECT 4 // 2;", "sql")).toEqual(["SELECT 4 // 2"]);
  });

  it("names the line of a string or comment left open", () => {
    expect(() => splitStatements("SELECT 1;\nSELECT 'open;", "sql")).toThrow("a string starting on line 2 is not closed");
    expect(() => splitStatements("/* never\nclosed", "cql")).toThrow("a /* comment starting on line 1 is not closed");
    expect(() => splitStatements("DO $x$ BEGIN END;", "sql")).toThrow("a $x$ string starting on line 1 is not closed");
    expect(() => splitStatements('SELECT "a;', "sql")).toThrow("a quoted name starting on line 1 is not closed");
  });

  it("a script of only comments and blanks has no statements", () => {
    expect(splitStatements("  -- nothing\n/* here */\n;\n", "sql")).toEqual([]);
  });
});

describe("describeStatement", () => {
  it("names a statement by its number, line and the start of its first line", () => {
    expect(describeStatement({ text: "CREATE TABLE orders (\n  id int\n)", line: 7 }, 2)).toBe(
      "statement 3 (line 7: CREATE TABLE orders ( …)",
    );
    expect(describeStatement({ text: "SELECT 1", line: 1 }, 0)).toBe("statement 1 (line 1: SELECT 1)");
    expect(describeStatement({ text: `SELECT ${"x, ".repeat(40)}1`, line: 1 }, 0)).toMatch(
      /^statement 1 \(line 1: SELECT x, .{40,60} …\)$/,
    );
  });
});
