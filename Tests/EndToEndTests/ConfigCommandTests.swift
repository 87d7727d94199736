import FixtureServerKit
import Foundation
import PhotosTestSupport
import Testing

/// `photos config show|path|init`, config file errors and `--version --verbose`, through the binary.
@Suite struct ConfigCommandTests {
    /// `config show --format json`'s entry for `key`.
    func setting(_ key: String, in run: PhotosBinary.Run) throws -> [String: Any] {
        let settings = try #require(try run.json()["settings"] as? [[String: Any]])
        return try #require(settings.first { $0["key"] as? String == key }, "no \(key) in \(run.stdout)")
    }

    /// A folder or file given with `~` is shown as the path photos uses, in the table and in
    /// JSON, wherever it was set.
    @Test func pathsAreShownWithTheHomeFolderInPlaceOfTilde() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let config = photos.home.appendingPathComponent("config.toml")
        try """
            [cache]
            dir = "~/cache-from-file"
            [save]
            dir = "~/Pictures/saved"
            """.write(to: config, atomically: true, encoding: .utf8)
        let home = photos.home.path
        let environment: [String: String?] = ["PHOTOS_CONFIG": config.path, "HOME": home, "PHOTOS_CA_BUNDLE": "~/ca.pem", "PHOTOS_CACHE_DIR": nil, "PHOTOS_SAVE_DIR": nil]
        let run = try await photos.run(["config", "show", "--format", "json"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try setting("cache.dir", in: run)["value"] as? String == home + "/cache-from-file")
        #expect(try setting("save.dir", in: run)["value"] as? String == home + "/Pictures/saved")
        #expect(try setting("tls.ca_bundle", in: run)["value"] as? String == home + "/ca.pem")
        let table = try await photos.run(["config", "show"], environment: environment)
        #expect(table.stdout.contains(home + "/cache-from-file") && table.stdout.contains(home + "/Pictures/saved"), "\(table.stdout)")
        #expect(!table.stdout.contains("~/"), "\(table.stdout)")
    }

    /// A setting nothing sets says in the table what photos does then, not only "not set"
    /// (`[save] dir` and `[defaults] opener` read "not set" with "default" beside them); the
    /// JSON keeps null.
    @Test func anUnsetSettingSaysWhatPhotosDoesThen() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let environment: [String: String?] = ["PHOTOS_CONFIG": "/dev/null", "PHOTOS_SAVE_DIR": nil, "PHOTOS_OPENER": nil, "PHOTOS_CA_BUNDLE": nil]
        let table = try await photos.run(["config", "show"], environment: environment)
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("[save] dir") && $0.contains("not set (the current folder)") }, "\(table.stdout)")
        #expect(lines.contains { $0.hasPrefix("[defaults] opener") && $0.contains("not set (xdg-open / open)") }, "\(table.stdout)")
        #expect(lines.contains { $0.hasPrefix("[tls] ca_bundle") && $0.contains("not set ") && !$0.contains("not set (") }, "no default to name: \(table.stdout)")
        let json = try await photos.run(["config", "show", "--format", "json"], environment: environment)
        #expect(try setting("save.dir", in: json)["value"] is NSNull, "\(json.stdout)")
    }

    @Test func reportsEachSettingsSourceEnvironmentFileOrDefault() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let config = photos.home.appendingPathComponent("config.toml")
        try """
            # a comment first
            [flickr]
            api_key = "from-the-file"

            [cache]
            max_size_mb = 750
            listing_ttl_seconds = 60
            """.write(to: config, atomically: true, encoding: .utf8)
        let run = try await photos.run(
            ["config", "show", "--format", "json"],
            environment: ["PHOTOS_CONFIG": config.path, "PHOTOS_CACHE_LISTING_TTL_SECONDS": "5", "FLICKR_API_KEY": nil])
        #expect(run.status == 0, "\(run.stderr)")

        let file = try #require(try run.json()["file"] as? [String: Any])
        #expect(file["path"] as? String == config.path && file["source"] as? String == "environment" && file["exists"] as? Bool == true)

        let key = try setting("flickr.api_key", in: run)
        #expect(key["source"] as? String == "file" && key["line"] as? Int == 3 && key["file"] as? String == config.path)
        #expect(key["secret"] as? Bool == true && key["set"] as? Bool == true && key["value"] is NSNull)
        #expect(!run.stdout.contains("from-the-file"), "a secret is never printed")

        let size = try setting("cache.max_size_mb", in: run)
        #expect(size["source"] as? String == "file" && size["line"] as? Int == 6 && size["value"] as? Int == 750, "an integer setting is a JSON number")

        let ttl = try setting("cache.listing_ttl_seconds", in: run)
        #expect(ttl["source"] as? String == "environment" && ttl["value"] as? Int == 5, "the environment wins over the file")

        let recent = try setting("cache.recent_searches", in: run)
        #expect(recent["source"] as? String == "default" && recent["value"] as? Int == 10)
        let placeholder = try setting("placeholder.api", in: run)
        #expect(placeholder["source"] as? String == "default" && placeholder["variable"] as? String == "PHOTOS_PLACEHOLDER_API")
        #expect(placeholder["value"] as? String == "https://jsonplaceholder.typicode.com", "a string setting stays a string")

        // The table says the same, with the file's line.
        let table = try await photos.run(["config", "show"], environment: ["PHOTOS_CONFIG": config.path, "FLICKR_API_KEY": "env-key"])
        #expect(table.status == 0, "\(table.stderr)")
        let keyLine = try #require(table.stdout.split(separator: "\n").first { $0.hasPrefix("[flickr] api_key") })
        #expect(keyLine.contains("set (hidden)") && keyLine.contains("environment FLICKR_API_KEY") && !table.stdout.contains("env-key"))
        let sizeLine = try #require(table.stdout.split(separator: "\n").first { $0.hasPrefix("[cache] max_size_mb") })
        #expect(sizeLine.contains("file \(config.path):6"))
        #expect(table.stdout.contains("libcurl "), "names the libcurl in use")
    }

    @Test func everyRegisteredSettingIsListed() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let run = try await photos.run(["config", "show", "--format", "json"])
        let providers = try await photos.run(["providers", "--format", "json"])
        let list = try #require(try JSONSerialization.jsonObject(with: providers.stdoutBytes) as? [[String: Any]])
        let variables = list.flatMap { ($0["settings"] as? [[String: Any]] ?? []).compactMap { $0["variable"] as? String } }
        #expect(!variables.isEmpty)
        for variable in variables + ["PHOTOS_CACHE_DIR", "PHOTOS_CA_BUNDLE", "PHOTOS_CACHE_MAX_SIZE_MB", "PHOTOS_MAX_CONNECTIONS_PER_HOST"] {
            #expect(run.stdout.contains("\"\(variable)\""), "\(variable) missing from config show")
        }
    }

    @Test(arguments: [
        ("[flickr]\napi_key = \"abc\"\napikey = \"typo\"\n", 3, "apikey"),
        ("[cache]\n\nmax_size_mb = \"500\"\n", 3, "max_size_mb"),
        ("[defaults]\nprovider = \"flickr\"\n[nope]\nkey = 1\n", 3, "nope"),
        ("[cache]\nmax_size_mb = 500\nrecent_searches = [1,\n", 3, ""),
        ("[flickr]\napi_key = bare words\n", 2, ""),
    ])
    func aBadConfigFileIsAnErrorNamingItsLine(text: String, line: Int, key: String) async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let config = photos.home.appendingPathComponent("bad.toml")
        try text.write(to: config, atomically: true, encoding: .utf8)
        let run = try await photos.run(["list", "--offline"], environment: ["PHOTOS_CONFIG": config.path])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("\(config.path):\(line):"), "\(run.stderr)")
        if !key.isEmpty { #expect(run.stderr.contains(key)) }
        #expect(run.stdout.isEmpty)
        // config show, where a user looks for the mistake, says it and shows the rest.
        let show = try await photos.run(["config", "show"], environment: ["PHOTOS_CONFIG": config.path])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stderr.hasPrefix("photos: warning: config file \(config.path):\(line):"), "\(show.stderr)")
        #expect(show.stderr.contains("left out below, and other commands refuse to run until it is fixed"), "\(show.stderr)")
        if !key.isEmpty { #expect(show.stderr.contains(key)) }
        #expect(show.stdout.contains("[cache] max_size_mb"), "\(show.stdout)")
        if text.hasPrefix("[defaults]\nprovider") {
            let provider = show.stdout.split(separator: "\n").first { $0.hasPrefix("[defaults] provider") } ?? ""
            #expect(provider.contains("flickr"), "the settings the file has right are shown: \(provider)")
        }
    }

    /// A relative folder in the config file (`[cache] dir = "cache"`) is the config file's
    /// folder's, wherever photos is run: not one cache (or save folder) per folder the user is in.
    @Test func relativePathsInTheFileAreTheFilesFolders() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("config-relative")
            let config = folder.appending("conf/photos.toml")
            try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
            try "[cache]\ndir = \"shared-cache\"\n[save]\ndir = \"Pictures/photos\"\n".write(to: config, atomically: true, encoding: .utf8)
            let expected = folder.appending("conf/shared-cache").path
            var environment = photos.environment
            environment["PHOTOS_CONFIG"] = config.path
            environment["PHOTOS_CACHE_DIR"] = nil
            for place in ["one", "two"] {
                let cwd = folder.appending(place)
                try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: true)
                /// Runs photos with `arguments` from `cwd`.
                func run(_ arguments: [String]) throws -> ProgramRun {
                    try runProgram("/bin/sh", ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", cwd.path, PhotosBinary.executable.path] + arguments,
                        environment: environment)
                }
                let path = try run(["cache", "path"])
                #expect(path.status == 0 && path.stdout == expected + "\n", "from \(place): \(path.stdout) \(path.stderr)")
                let shown = try run(["config", "show"])
                #expect(shown.stdout.contains(expected), "config show says the folder used: \(shown.stdout)")
                let saved = try run(["save", "placeholder:\(place == "one" ? 1 : 2)"])
                #expect(saved.status == 0, "\(saved.stderr)")
            }
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.appending("conf/Pictures/photos/placeholder").path))
                == ["placeholder_1.jpg", "placeholder_2.jpg"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appending("one").path).isEmpty)
        }
    }

    @Test func initWritesATemplateOnceAndItReadsBack() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let config = photos.home.appendingPathComponent("new/photos.toml")
        let path = try await photos.run(["config", "path"], environment: ["PHOTOS_CONFIG": config.path])
        #expect(path.stdout == config.path + "\n")
        let xdg = try await photos.run(["config", "path"], environment: ["PHOTOS_CONFIG": nil, "XDG_CONFIG_HOME": "/somewhere"])
        #expect(xdg.stdout == "/somewhere/photos/config.toml\n")
        // A relative XDG path is invalid (the XDG spec) and ignored, as are the cache's.
        let relative = try await photos.run(["config", "path"], environment: ["PHOTOS_CONFIG": nil, "XDG_CONFIG_HOME": "relative", "HOME": "/home/someone"])
        #expect(relative.stdout == "/home/someone/.config/photos/config.toml\n", "\(relative.stdout)")
        let cache = try await photos.run(["cache", "path"], environment: ["PHOTOS_CACHE_DIR": nil, "XDG_CACHE_HOME": "relative", "HOME": "/home/someone"])
        #expect(cache.stdout == "/home/someone/.cache/photos\n", "\(cache.stdout)")

        let first = try await photos.run(["config", "init"], environment: ["PHOTOS_CONFIG": config.path])
        #expect(first.status == 0, "\(first.stderr)")
        let template = try String(contentsOf: config, encoding: .utf8)
        for key in ["# api_key = ", "# max_size_mb = 500", "[placeholder]", "FLICKR_API_KEY"] {
            #expect(template.contains(key), "\(key) missing from the template")
        }
        try "# mine\n".write(to: config, atomically: true, encoding: .utf8)
        let second = try await photos.run(["config", "init"], environment: ["PHOTOS_CONFIG": config.path])
        #expect(second.status == 64 && second.stderr.contains("already exists"))
        #expect(try String(contentsOf: config, encoding: .utf8) == "# mine\n", "never overwritten")

        // A folder is named as such; a file where a folder should be cannot be written into (74).
        let folder = try await photos.run(["config", "init"], environment: ["PHOTOS_CONFIG": photos.home.path])
        #expect(folder.status == 64 && folder.stderr.contains("is a folder; PHOTOS_CONFIG names the config file itself"), "\(folder.stderr)")
        // /dev/null is "no config", not a file that exists.
        let none = try await photos.run(["config", "init"], environment: ["PHOTOS_CONFIG": "/dev/null"])
        #expect(none.status == 64 && none.stderr.contains("PHOTOS_CONFIG=/dev/null says there is no config file; to write one, name a file"), "\(none.stderr)")
        let underAFile = try await photos.run(["config", "init"], environment: ["PHOTOS_CONFIG": config.path + "/inner.toml"])
        #expect(underAFile.status == 74, "\(underAFile.stderr)")
        #expect(underAFile.stderr.contains("cannot create \(config.path)/inner.toml: Not a directory"), "\(underAFile.stderr)")

        // Every setting of the template, uncommented, is a valid config file.
        let uncommented = template.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("# ") && line.contains(" = ") ? String(line.dropFirst(2)) : String(line)
        }.joined(separator: "\n")
        try uncommented.write(to: config, atomically: true, encoding: .utf8)
        let show = try await photos.run(["config", "show", "--format", "json"], environment: ["PHOTOS_CONFIG": config.path])
        #expect(show.status == 0, "\(show.stderr)")
    }

    @Test func aValueCommandsWouldRefuseIsSaidByConfigShow() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let run = try await photos.run(["config", "show"], environment: ["PHOTOS_CACHE_MAX_SIZE_MB": "abc"])
        #expect(run.status == 0, "the report still prints")
        #expect(run.stderr.contains("PHOTOS_CACHE_MAX_SIZE_MB ([cache] max_size_mb) is 'abc', not a whole number from 1 to"), "\(run.stderr)")
        // Commands refuse it in one short line that names the config key too, the value cut
        // and its escape sequence written out (a value of 100 KB was written whole).
        for (value, shown) in [("5\u{1B}[31m", "got '5\\u{1B}[31m'"), (String(repeating: "9", count: 100_000), "got '99999")] {
            let stats = try await photos.run(["cache", "stats"], environment: ["PHOTOS_CACHE_MAX_SIZE_MB": value])
            #expect(stats.status == 64, "\(stats.status)")
            #expect(stats.stderr.contains("PHOTOS_CACHE_MAX_SIZE_MB (config [cache] max_size_mb) must be a whole number from 1 to") && stats.stderr.contains(shown), "\(stats.stderr.prefix(300))")
            #expect(stats.stderr.utf8.count < 300 && !stats.stderr.contains("\u{1B}"), "\(stats.stderr.utf8.count) bytes")
        }
        let fine = try await photos.run(["config", "show"], environment: ["PHOTOS_CACHE_MAX_SIZE_MB": "750"])
        #expect(fine.stderr.isEmpty, "\(fine.stderr)")
        // A CA file that cannot be read, and an endpoint that is no URL: refused by commands (64),
        // said here.
        let paths = try await photos.run(["config", "show"], environment: ["PHOTOS_CA_BUNDLE": "/nonexistent.pem", "PHOTOS_NASA_API": "notaurl"])
        #expect(paths.status == 0, "the report still prints")
        #expect(paths.stderr.contains("PHOTOS_CA_BUNDLE ([tls] ca_bundle) names '/nonexistent.pem', which cannot be read"), "\(paths.stderr)")
        #expect(paths.stderr.contains("PHOTOS_NASA_API ([nasa] api) is 'notaurl', not an http or https URL"), "\(paths.stderr)")
        // A default provider no listing could use: said here, as list says it.
        let config = photos.home.appendingPathComponent("defaults.toml")
        try "[defaults]\nprovider = \"nope\"\n".write(to: config, atomically: true, encoding: .utf8)
        let defaults = try await photos.run(["config", "show"], environment: ["PHOTOS_CONFIG": config.path])
        #expect(defaults.status == 0 && defaults.stderr.contains("unknown provider 'nope' (config [defaults] provider)"), "\(defaults.stderr)")
        let list = try await photos.run(["list"], environment: ["PHOTOS_CONFIG": config.path])
        #expect(list.status == 64 && list.stderr.contains("unknown provider 'nope' (config [defaults] provider)"), "\(list.stderr)")
        try "[defaults]\nprovider = \"openverse\"\n".write(to: config, atomically: true, encoding: .utf8)
        #expect(try await photos.run(["config", "show"], environment: ["PHOTOS_CONFIG": config.path]).stderr.isEmpty)
        // Checked quietly: which providers `all` skips is a listing's to say.
        try "[defaults]\nprovider = \"all\"\n".write(to: config, atomically: true, encoding: .utf8)
        let all = try await photos.run(["config", "show"], environment: ["PHOTOS_CONFIG": config.path, "FLICKR_API_KEY": nil])
        #expect(all.stderr.isEmpty, "\(all.stderr)")
    }

    /// A variable set to spaces is not set: the file's value counts, for commands and for
    /// `config show` alike (it hid the file's key, then counted as no key at all).
    @Test func aBlankVariableLeavesTheFilesValue() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let config = photos.home.appendingPathComponent("config.toml")
        try "[flickr]\napi_key = \"from-the-file\"\n[cache]\ndir = \"~/from-config\"\n".write(to: config, atomically: true, encoding: .utf8)
        let blank = ["PHOTOS_CONFIG": config.path, "FLICKR_API_KEY": " ", "PHOTOS_CACHE_DIR": " \t"]
        let show = try await photos.run(["config", "show", "--format", "json"], environment: blank)
        #expect(show.status == 0, "\(show.stderr)")
        let key = try setting("flickr.api_key", in: show)
        #expect(key["source"] as? String == "file" && key["set"] as? Bool == true, "\(key)")
        let providers = try await photos.run(["providers", "--format", "json"], environment: blank)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(providers.stdout.utf8)) as? [[String: Any]])
        #expect(entries.first { $0["name"] as? String == "flickr" }?["configured"] as? Bool == true, "\(providers.stdout)")
        let path = try await photos.run(["cache", "path"], environment: blank)
        #expect(path.stdout.trimmingCharacters(in: .newlines) == photos.home.path + "/from-config", "\(path.stdout) \(path.stderr)")
    }

    /// A value is shown as photos uses it: two spaces in a path stay two (sanitising made them
    /// one, a path that does not exist), quoted so that the spaces at its ends show too.
    @Test func configShowKeepsAValuesSpaces() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let config = photos.home.appendingPathComponent("config.toml")
        try "[save]\ndir = \"/srv/my  photos\"\n".write(to: config, atomically: true, encoding: .utf8)
        let show = try await photos.run(
            ["config", "show"], environment: ["PHOTOS_CONFIG": config.path, "PHOTOS_CACHE_DIR": "/tmp/photos   cache "])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("'/srv/my  photos'"), "\(show.stdout)")
        #expect(show.stdout.contains("'/tmp/photos   cache '"), "\(show.stdout)")
        #expect(show.stdout.contains("https://api.flickr.com/services/rest/ "), "a plain value is not quoted: \(show.stdout)")
    }

    /// A config file that cannot be looked at (a link to nothing, a loop of links) is said, as
    /// an unreadable one is; it was taken for no file, and the defaults used without a word.
    @Test func aConfigLinkToNothingOrALoopIsSaidNotSkipped() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let dangling = photos.home.appendingPathComponent("dangling.toml")
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: photos.home.appendingPathComponent("gone.toml").path)
        let loop = photos.home.appendingPathComponent("loop1.toml")
        try FileManager.default.createSymbolicLink(atPath: loop.path, withDestinationPath: photos.home.appendingPathComponent("loop2.toml").path)
        try FileManager.default.createSymbolicLink(
            atPath: photos.home.appendingPathComponent("loop2.toml").path, withDestinationPath: loop.path)
        for (path, reason) in [(dangling.path, "is a symbolic link to nothing"), (loop.path, "cannot be read: Too many levels of symbolic links")] {
            let run = try await photos.run(["cache", "path"], environment: ["PHOTOS_CONFIG": path])
            #expect(run.status == 64 && run.stderr.contains("\(path)") && run.stderr.contains(reason), "\(run.status) \(run.stderr)")
            let show = try await photos.run(["config", "show"], environment: ["PHOTOS_CONFIG": path])
            #expect(show.status == 0 && show.stderr.contains(reason) && !show.stdout.contains("not present"), "\(show.stdout) \(show.stderr)")
        }
        let missing = try await photos.run(["cache", "path"], environment: ["PHOTOS_CONFIG": photos.home.appendingPathComponent("none.toml").path])
        // No file at all is no config, said: a file named on purpose and not there is most
        // likely a typo (config init writes one there).
        #expect(missing.status == 0 && missing.stderr.contains("PHOTOS_CONFIG names") && missing.stderr.contains("photos config init"), "\(missing.stderr)")
        let none = try await photos.run(["cache", "path"], environment: ["PHOTOS_CONFIG": "/dev/null"])
        #expect(none.status == 0 && none.stderr.isEmpty, "/dev/null is no config, quietly: \(none.stderr)")
    }

    /// A download setting stops only commands that download: `cache` commands run whatever
    /// PHOTOS_MAX_IMAGE_MB says, and `config show` keeps saying it is wrong.
    @Test func aBadDownloadCapDoesNotStopTheCacheCommands() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        for arguments in [["cache", "stats"], ["cache", "prune"], ["cache", "clear"]] {
            let run = try await photos.run(arguments, environment: ["PHOTOS_MAX_IMAGE_MB": "0"])
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
        }
        let list = try await photos.run(["list", "--provider", "placeholder"], environment: ["PHOTOS_MAX_IMAGE_MB": "0"])
        #expect(list.status == 64 && list.stderr.contains("PHOTOS_MAX_IMAGE_MB"), "\(list.stderr)")
    }

    /// `~` is $HOME in every path setting, as in the shell (not the account's home folder).
    @Test func aTildeInAPathSettingIsHOME() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let home = photos.home.path
        let variable = try await photos.run(["cache", "path"], environment: ["PHOTOS_CACHE_DIR": "~/from-variable"])
        #expect(variable.stdout.trimmingCharacters(in: .newlines) == home + "/from-variable", "\(variable.stdout)")

        let config = photos.home.appendingPathComponent("config.toml")
        try "[cache]\ndir = \"~/from-config\"\n".write(to: config, atomically: true, encoding: .utf8)
        let file = try await photos.run(["cache", "path"], environment: ["PHOTOS_CACHE_DIR": nil, "PHOTOS_CONFIG": "~/config.toml"])
        #expect(file.stdout.trimmingCharacters(in: .newlines) == home + "/from-config", "PHOTOS_CONFIG and [cache] dir: \(file.stdout) \(file.stderr)")

        // --to=~/... reaches photos unexpanded (the shell expands ~ only at a word's start).
        let saved = try await photos.run(["save", "placeholder:1", "--to=~/pictures"], environment: ["PHOTOS_PLACEHOLDER_API": "http://127.0.0.1:9"])
        #expect(saved.stdout.contains(" to \(home)/pictures ") || saved.stderr.contains("\(home)/pictures"), "\(saved.stdout) \(saved.stderr)")
        #expect(!saved.stdout.contains(NSHomeDirectory() + "/pictures") || NSHomeDirectory() == home)
    }

    /// `config show` says the cache folder in use when nothing sets it, as `cache path` does,
    /// not "not set".
    @Test func theDefaultCacheFolderIsShownAsTheOneInUse() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let unset: [String: String?] = ["PHOTOS_CACHE_DIR": nil, "XDG_CACHE_HOME": photos.home.appendingPathComponent("xdg").path]
        let path = try await photos.run(["cache", "path"], environment: unset).stdout.trimmingCharacters(in: .newlines)
        let show = try await photos.run(["config", "show", "--format", "json"], environment: unset)
        let settings = try #require((try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])?["settings"] as? [[String: Any]])
        let dir = try #require(settings.first { $0["key"] as? String == "cache.dir" })
        #expect(dir["value"] as? String == path && dir["source"] as? String == "default", "\(dir)")
        #expect(path == photos.home.appendingPathComponent("xdg/photos").path)
    }

    /// An empty or relative HOME is no home folder: the account's is used, never a path that
    /// moves with the current folder.
    @Test func anEmptyOrRelativeHOMEIsTheAccountsHomeFolder() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let account = try #require(getpwuid(getuid())?.pointee.pw_dir.map { String(cString: $0) })
        for home in ["", "relative/home"] {
            let unset: [String: String?] = ["HOME": home, "PHOTOS_CACHE_DIR": nil, "XDG_CACHE_HOME": nil, "PHOTOS_CONFIG": nil, "XDG_CONFIG_HOME": nil]
            let cache = try await photos.run(["cache", "path"], environment: unset)
            #expect(cache.stdout.trimmingCharacters(in: .newlines) == account + "/.cache/photos", "HOME=\(home): \(cache.stdout) \(cache.stderr)")
            let config = try await photos.run(["config", "path"], environment: unset)
            #expect(config.stdout.trimmingCharacters(in: .newlines) == account + "/.config/photos/config.toml", "HOME=\(home): \(config.stdout)")
            let tilde = try await photos.run(["cache", "path"], environment: unset.merging(["PHOTOS_CACHE_DIR": "~/elsewhere"]) { $1 })
            #expect(tilde.stdout.trimmingCharacters(in: .newlines) == account + "/elsewhere", "HOME=\(home): \(tilde.stdout)")
        }
    }

    @Test func versionIsTheVersionAndVerboseAddsLibcurl() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let plain = try await photos.run(["--version"])
        #expect(plain.status == 0 && plain.stdout.split(separator: "\n").count == 1)
        let version = plain.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let verbose = try await photos.run(["--version", "--verbose"])
        #expect(verbose.status == 0)
        #expect(verbose.stdout.hasPrefix("photos \(version)\n"))
        #expect(verbose.stdout.contains("libcurl ") && verbose.stdout.contains("HTTP/2") && verbose.stdout.contains("TLS: "))
    }
}
