/**
 * Words for seeded post texts. Mixed case, accents and other scripts exercise case-insensitive
 * matching; `*`, `?`, `\` and `%` exercise the escaping of wildcard and LIKE-style patterns.
 */
export const WORDS = [
  'the', 'a', 'of', 'and', 'cat', 'Cat', 'CAT', 'dog', 'Dog', 'sunset', 'Sunrise', 'mountain', 'river', 'ocean',
  'forest', 'city', 'night', 'day', 'morning', 'evening', 'portrait', 'landscape', 'Abstract', 'minimal', 'retro',
  'vintage', 'neon', 'pixel', 'sketch', 'drawing', 'painting', 'photo', 'shot', 'view', 'street', 'market',
  'festival', 'winter', 'summer', 'autumn', 'spring', 'snow', 'rain', 'storm', 'cloud', 'sky', 'star', 'moon',
  'sun', 'light', 'shadow', 'colour', 'color', 'red', 'green', 'blue', 'yellow', 'purple', 'black', 'white',
  'grey', 'golden', 'silver', 'bird', 'fish', 'horse', 'fox', 'owl', 'wolf', 'bear', 'tiger', 'lion', 'mouse',
  'coffee', 'tea', 'bread', 'cake', 'pizza', 'ramen', 'sushi', 'train', 'car', 'bike', 'plane', 'boat', 'bridge',
  'tower', 'castle', 'house', 'garden', 'flower', 'rose', 'tree', 'leaf', 'stone', 'sand', 'desert', 'island',
  'beach', 'wave', 'lake', 'valley', 'hill', 'road', 'path', 'door', 'window', 'wall', 'roof', 'room', 'lamp',
  'book', 'music', 'guitar', 'piano', 'drum', 'dance', 'smile', 'friend', 'family', 'kid', 'old', 'new', 'big',
  'small', 'tiny', 'huge', 'quiet', 'loud', 'happy', 'sad', 'funny', 'strange', 'weird', 'cute', 'cool', 'warm',
  'cold', 'HDR', 'RAW', 'JPEG', 'wallpaper', 'meme', 'OC', 'repost', 'fanart', 'cosplay', 'anime', 'manga',
  'café', 'Café', 'naïve', 'Straße', 'STRASSE', 'Ærøskøbing', 'Ελλάδα', 'ΟΔΟΣ', 'Москва', 'москва', '東京',
  '猫', 'İstanbul', 'emoji🙂', '🙂', 'x', 'ab', 'abc', 'abcd', '2024', '1080p', '4K', '100%', '50%_off',
  'a*b', 'why?', 'what??', 'C:\\temp', 'back\\slash', '*star*', '_under_', 'hyphen-ated', 'dot.ted', 'e-mail',
  '#tag', '@user', '(paren)', '[bracket]', '"quoted"', "it's", 'rock&roll', 'snake_case', 'camelCase',
] as const;
