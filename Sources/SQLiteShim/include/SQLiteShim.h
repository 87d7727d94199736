#ifndef PHOTOS_SQLITE_SHIM_H
#define PHOTOS_SQLITE_SHIM_H

/// Non-variadic wrappers over SQLite calls Swift cannot make itself (sqlite3_db_config is
/// variadic). The connection is passed untyped so that this module needs no SQLite headers of
/// its own in Swift.

/// Turns off the checkpoint SQLite runs when a database's last connection closes
/// (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE). Returns SQLite's result code.
int photos_sqlite_skip_checkpoint_on_close(void *connection);

#endif
