#!/bin/sh
# docker-compose.yml's Postgres, on its first start (/docker-entrypoint-initdb.d): the roles
# `lab control-plane up` makes. POSTGRES_USER (scalelab_admin) is the superuser that administers;
# the applications connect as `scalelab`, which owns the `scalelab` database and may create
# neither roles nor databases. Its password comes from the environment through psql's \getenv,
# never on a command line.
set -eu
psql -X -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres <<'SQL'
\getenv app_pw SCALELAB_DB_PASSWORD
CREATE ROLE scalelab WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'app_pw';
CREATE DATABASE scalelab OWNER scalelab;
SQL
