import Foundation
import PhotosCore

/// `photos show flickr:ID`: getInfo and getSizes side by side, merged into one detail.
extension FlickrProvider {
    public func detail(_ id: PhotoID) async throws -> PhotoDetail {
        guard id.provider == Self.name else {
            throw PhotosError.usage("\(id.provider) ids are not Flickr photo ids")
        }
        guard Self.isValidID(id.raw) else {
            throw PhotosError.usage("a Flickr photo id is 1 to 20 digits, e.g. flickr:53624890009")
        }
        let key = try apiKey()

        async let infoBody = call("flickr.photos.getInfo", apiKey: key, [("photo_id", id.raw)], photo: id)
        async let sizesBody = call("flickr.photos.getSizes", apiKey: key, [("photo_id", id.raw)], photo: id)
        let (infoData, sizesData) = try await (infoBody, sizesBody)

        let info: FlickrInfo
        let sizes: FlickrSizes
        do {
            info = try FlickrInfo(infoData.get())
        } catch {
            throw FlickrError.badData("the flickr.photos.getInfo response is not a photo (\(Self.reason(error)))")
        }
        do {
            sizes = try FlickrSizes(sizesData.get())
        } catch {
            throw FlickrError.badData("the flickr.photos.getSizes response is not a size list (\(Self.reason(error)))")
        }
        return merge(id: id, info: info, sizes: sizes)
    }

    func merge(id: PhotoID, info: FlickrInfo, sizes: FlickrSizes) -> PhotoDetail {
        let photoSizes = sizes.sizes.compactMap { size -> PhotoSize? in
            guard URLPolicy.isAllowed(size.source) else { return nil }
            return PhotoSize(label: size.label, width: size.width, height: size.height, url: size.source)
        }
        let thumbnail =
            photoSizes.first { $0.label == "Large Square" }?.url
            ?? api.staticURL(server: info.server, id: id.raw, secret: info.secret, suffix: "q")
        // The photo's own image: "Large" (1024) like listings, else the largest up to 1024, else any.
        let image =
            photoSizes.first { $0.label == "Large" }
            ?? photoSizes.filter { $0.longestEdge <= 1024 }.max { $0.longestEdge < $1.longestEdge }
            ?? photoSizes.max { $0.longestEdge < $1.longestEdge }
        let imageURL = image?.url ?? api.staticURL(server: info.server, id: id.raw, secret: info.secret, suffix: "b")

        let owner = Self.nonEmpty(info.ownerUsername) ?? Self.nonEmpty(info.ownerRealName) ?? Self.nonEmpty(info.ownerNSID)
        let pageURL = info.photoPageURL.flatMap(Self.allowed) ?? FlickrAPI.pageURL(owner: Self.nonEmpty(info.ownerNSID), id: id.raw)
        let taken = FlickrDates.taken(info.taken)
        let uploaded = FlickrDates.unix(info.posted) ?? FlickrDates.unix(info.dateUploaded)

        let photo = Photo(
            id: id,
            title: info.title.map(HTMLText.decodeEntities) ?? "",
            owner: owner,
            thumbnailURL: thumbnail,
            imageURL: imageURL,
            width: image?.width,
            height: image?.height,
            pageURL: pageURL,
            takenAt: taken,
            uploadedAt: uploaded,
            tags: info.tags
        )
        var extra: [String: String] = [:]
        if let views = Self.nonEmpty(info.views) { extra["views"] = views }
        if let license = Self.nonEmpty(info.license) { extra["license"] = Self.licenseNames[license] ?? license }
        if let realName = Self.nonEmpty(info.ownerRealName) { extra["real_name"] = realName }
        if let location = Self.nonEmpty(info.ownerLocation) { extra["location"] = location }
        if let media = Self.nonEmpty(info.media), media != "photo" { extra["media"] = media }
        return PhotoDetail(
            photo: photo,
            description: Self.nonEmpty(info.description).map(Self.plainDescription).flatMap(Self.nonEmpty),
            takenAt: taken,
            uploadedAt: uploaded,
            tags: info.tags,
            sizes: photoSizes,
            extra: extra
        )
    }

    /// A description as text: Flickr's may hold HTML (links, `<br />`, entities), made plain as
    /// Commons' is; one without markup or entities keeps its line breaks.
    static func plainDescription(_ text: String) -> String {
        text.utf8.contains(UInt8(ascii: "<")) || text.utf8.contains(UInt8(ascii: "&")) ? HTMLText.plain(text) : text
    }
}
