import Foundation
import PhotosCore

/// `photos config init`: a config file listing every setting, each commented out.
enum ConfigTemplate {
    static func text(schema: ConfigSchema) -> String {
        var text = """
            # photos configuration (TOML). Every setting is commented out: remove the leading "# "
            # of a line to set it. A variable named beside a setting overrides the file.
            # photos config show prints the effective value of each and where it comes from.

            """
        for section in schema.sections {
            text += "\n[\(section)]\n"
            for setting in schema.settings where setting.section == section {
                var about = setting.summary
                if let variable = setting.variable { about += " (\(variable))" }
                text += "# \(about)\n"
                text += "# \(setting.key) = \(example(setting))\n"
            }
        }
        return text
    }

    /// The value shown for a setting: its default, else an example of the right type.
    static func example(_ setting: ConfigSetting) -> String {
        switch setting.kind {
        case .integer(let range):
            return setting.defaultValue ?? String(range.lowerBound)
        case .string, .providerList:
            let value = setting.defaultValue ?? setting.example ?? ""
            return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
    }

    /// Writes the template to `path` (creating its folder), never replacing an existing file.
    /// - Throws: `PhotosError.usage` when a file is already there or cannot be written.
    static func write(to path: String, schema: ConfigSchema) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        // O_EXCL: an existing file (or one created meanwhile) is never replaced.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno
            var isFolder: ObjCBool = false
            if reason == EEXIST || reason == EISDIR, FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                throw PhotosError.usage("\(path) is a folder; PHOTOS_CONFIG names the config file itself (e.g. \(path)/config.toml)")
            }
            if reason == EEXIST, path == "/dev/null" {
                throw PhotosError.usage("PHOTOS_CONFIG=/dev/null says there is no config file; to write one, name a file: PHOTOS_CONFIG=~/photos.toml photos config init")
            }
            if reason == EEXIST {
                throw PhotosError.usage("\(path) already exists; photos config init never overwrites a config file (edit it, or move it away first)")
            }
            // The file system refused (permissions, a file where a folder should be, a full
            // disk): output that could not be written.
            throw OutputError.failed("cannot create \(path): \(String(cString: strerror(reason)))")
        }
        defer { close(descriptor) }
        if let failure = Output.writeAll(text(schema: schema), to: descriptor) {
            unlink(path)  // never half a template
            throw OutputError.failed("cannot write \(path): \(String(cString: strerror(failure)))")
        }
    }
}
