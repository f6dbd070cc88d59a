#!/bin/sh
# docker-compose.yml's service postgres-roles: the roles `lab control-plane up` makes, made by the
# superuser (PGUSER, scalelab_admin) over the network (PGHOST, PGPASSWORD) once Postgres answers.
# The applications connect as `scalelab`, which owns the `scalelab` database and may create neither
# roles nor databases. Idempotent: a later `up` creates what is missing and sets the role's
# password to SCALELAB_DB_PASSWORD again. The password comes from the environment through psql's
# \getenv, never on a command line.
set -eu
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
\getenv app_pw SCALELAB_DB_PASSWORD
SELECT format('CREATE ROLE scalelab WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD %L', :'app_pw')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'scalelab')\gexec
SELECT format('ALTER ROLE scalelab WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD %L', :'app_pw')\gexec
SELECT 'CREATE DATABASE scalelab OWNER scalelab'
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'scalelab')\gexec
SQL
echo "postgres-roles: role scalelab and database scalelab ready"
