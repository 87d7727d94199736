import Foundation
import PhotosTestSupport
import Testing

/// `scripts/install.sh` (what make install and make uninstall run) into a temporary DESTDIR,
/// with the debug binary and the man pages `make man` generated (make test generates them
/// before the tests run).
@Suite struct InstallTests {
    static let manSource = packageRoot.appendingPathComponent(".build/plugins/GenerateManual/outputs/photos")
    static let havePages = FileManager.default.fileExists(atPath: manSource.appendingPathComponent("photos.1").path)
    static let man = findExecutable("man")

    @Test(.enabled(if: havePages, "no generated man pages: make man (or make test) writes them"))
    func installsEveryFileWhereDesignSaysAndUninstallLeavesNothing() throws {
        let destdir = FileManager.default.temporaryDirectory.appendingPathComponent("photos-install-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destdir) }
        let prefix = "/opt/photos-test"
        var environment = ProcessInfo.processInfo.environment
        environment["PREFIX"] = prefix
        environment["DESTDIR"] = destdir.path
        environment["PHOTOS_BIN"] = PhotosBinary.executable.path
        environment["MAN_SOURCE"] = Self.manSource.path
        let script = packageRoot.appendingPathComponent("scripts/install.sh").path

        let install = try runTool(script, ["install"], environment: environment)
        try #require(install.status == 0, "\(install.stderr)")
        let root = destdir.appendingPathComponent(String(prefix.dropFirst()))
        let files = Set(try Self.files(under: root))
        for expected in [
            "bin/photos", "share/man/man1/photos.1", "share/man/man1/photos.list.1", "share/man/man1/photos.show.1",
            "share/man/man1/photos.config.show.1", "share/bash-completion/completions/photos",
            "share/zsh/site-functions/_photos", "share/fish/vendor_completions.d/photos.fish",
        ] {
            #expect(files.contains(expected), "\(expected) not installed: \(files.sorted())")
        }
        #expect(files.allSatisfy {
            $0 == "bin/photos" || $0.hasPrefix("share/man/man1/photos") || $0.hasSuffix("photos") || $0.hasSuffix("_photos")
                || $0.hasSuffix("photos.fish")
        }, "nothing else: \(files.sorted())")
        #expect(FileManager.default.isExecutableFile(atPath: root.appendingPathComponent("bin/photos").path))
        // Installed without its debug information (a third of a release binary, and the build's
        // folder names).
        let sections = try runTool("/usr/bin/readelf", ["-S", "-W", root.appendingPathComponent("bin/photos").path])
        #expect(sections.status == 0 && sections.stdout.contains(".text") && !sections.stdout.contains(".debug_"), "\(sections.stdout.prefix(2000))")
        let version = try runTool(root.appendingPathComponent("bin/photos").path, ["--version"])
        #expect(version.status == 0 && !version.stdout.isEmpty)

        if let man = Self.man {
            // whatis and apropos can read a subcommand's page (man-db's lexgrog, beside man).
            let lexgrog = URL(fileURLWithPath: man).deletingLastPathComponent().appendingPathComponent("lexgrog").path
            let names = try runTool(lexgrog, [root.appendingPathComponent("share/man/man1/photos.list.1").path])
            #expect(names.status == 0 && names.stdout.contains("photos-list - List or search photos"), "\(names.stdout) \(names.stderr)")
            // Every page renders without a warning, and shows the options --help shows.
            for page in files where page.hasPrefix("share/man/man1/") {
                let rendered = try runTool(man, ["-l", root.appendingPathComponent(page).path], environment: ["MANWIDTH": "100", "PATH": "/usr/bin:/bin"])
                #expect(rendered.status == 0 && rendered.stderr.isEmpty, "\(page): \(rendered.stderr)")
            }
            let list = try runTool(man, ["-l", root.appendingPathComponent("share/man/man1/photos.list.1").path], environment: ["MANWIDTH": "200", "PATH": "/usr/bin:/bin"])
            let help = try runTool(PhotosBinary.executable.path, ["list", "--help"])
            for option in ["--provider", "--query", "--per-page", "--offline", "--graphics"] {
                #expect(help.stdout.contains(option) && list.stdout.contains(option), "\(option) missing from the page")
            }
            #expect(list.stdout.contains("Stop after this many photos"), "the page holds --help's text")
            // At 80 columns an example is still one line to copy, and a variable's name is whole.
            let narrow = try runTool(man, ["-l", root.appendingPathComponent("share/man/man1/photos.list.1").path], environment: ["MANWIDTH": "80", "PATH": "/usr/bin:/bin"])
            #expect(narrow.stdout.contains("photos list --provider flickr -q dogs --filter license=9,10"), "\(narrow.stdout)")
            let main = try runTool(man, ["-l", root.appendingPathComponent("share/man/man1/photos.1").path], environment: ["MANWIDTH": "80", "PATH": "/usr/bin:/bin"])
            #expect(main.stdout.contains("PHOTOS_CACHE_DIR") && !main.stdout.contains("PHO\u{2010}"), "no name is hyphenated: \(main.stdout)")
            #expect(!main.stdout.contains("photos.help"), "SEE ALSO names only pages that are installed")
        }

        let uninstall = try runTool(script, ["uninstall"], environment: environment)
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(try Self.files(under: root).isEmpty, "uninstall leaves no file")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).isEmpty, "nor a folder it made")
    }

    /// Paths of every file under `root`, relative to it.
    static func files(under root: URL) throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { path in
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory)
            return !isDirectory.boolValue
        }
    }
}
